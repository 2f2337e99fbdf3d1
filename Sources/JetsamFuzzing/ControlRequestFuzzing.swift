import FoundationEssentials
import JetsamConfig
import JetsamCore
import JetsamProtocol
import JetsamShell
import JetsamValues

/// One control request line, through everything jetsamd does with it that needs no daemon state: the parser, the
/// field checks of every verb, and the encoding of the answer. What the requests then do to a running daemon is
/// fuzzed over the socket (`scripts/fuzz-socket.py`).
enum ControlRequestFuzzing {
  /// A config with one configured app, so that launches hit both the configured and the ad-hoc path.
  private static let config: DaemonConfig = {
    var config = DaemonConfig()
    config.apps["configured"] = AppConfig(command: ["/bin/true"])
    return config
  }()

  static func run(_ bytes: [UInt8]) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    switch ControlRequestParser.parse(bytes) {
    case .failure(let error):
      _ = ControlResponse.failure(error).line(encoder: encoder)
    case .success(let request):
      let answer: ControlResponse
      do {
        answer = try check(request)
      } catch {
        answer = .failure(error)
      }
      _ = answer.line(encoder: encoder)
    }
  }

  /// The instant of the answers' made-up apps: their times are not what is fuzzed.
  private static let never = Instant(nanoseconds: 0)

  /// The checks the handler runs for the request's verb; an answer echoing the request's own values.
  private static func check(_ request: ControlRequest) throws(ControlError) -> ControlResponse {
    var response = ControlResponse(ok: true)
    switch request.verb {
    case .launch:
      // As root, as a member, and as a uid with no name.
      for peer: UInt32? in [0, 1000, nil] {
        _ = try? request.launchSpec(config: config, peer: peer, userName: { $0 == 1000 ? "member" : nil })
      }
      let (name, _) = try request.launchSpec(config: config, peer: 0, userName: { _ in "root" })
      response.app = AppInfo(
        status: AppStatus(
          name: name, state: .background, bandFloor: request.band, pid: nil, launch: 1, stateEnteredAt: Self.never,
          bandEnteredAt: Self.never, spawnedAt: nil),
        measured: AppMeasurements(memoryBytes: request.memoryLimit ?? 0, memoryLimitBytes: request.memoryLimit))
    case .activate, .background, .suspend, .resume, .terminate, .kill:
      response.apps = try request.lifecycleTargets().map { name in
        AppInfo(
          status: AppStatus(
            name: name, state: .suspended, bandFloor: nil, pid: 1, launch: 1, stateEnteredAt: Self.never,
            bandEnteredAt: Self.never, spawnedAt: Self.never),
          measured: AppMeasurements(memoryBytes: 1, stateSeconds: 0.5))
      }
    case .pressure:
      _ = try request.pressureRequest(ram: 1 << 30)
    case .exits:
      _ = try request.sinceDate()
    case .device:
      response.device = DeviceInfo(charging: request.charging ?? false)
    case .metrics, .diagnostics:
      _ = try request.sinceDate()
      _ = try request.optionalApp()
      _ = try request.wantsPrometheus()
    case .watch:
      _ = try request.watchInterval()
    case .status, .ps, .debugFreeze:
      break
    }
    return response
  }
}
