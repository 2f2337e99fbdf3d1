import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit

/// The verbs the bench uses, on the shared control client: each throws when jetsamd refuses.
extension ControlClient {
  /// Sends a request and returns its response; throws when the daemon refuses it.
  @discardableResult
  func sendAccepted(_ request: ControlRequest) throws -> ControlResponse {
    let response = try send(request)
    guard response.ok else {
      throw BenchError(
        "jetsamd refused \(request.verb.rawValue) \(request.app ?? ""): \(response.error?.message ?? "?")")
    }
    return response
  }

  /// Launches an ad-hoc app; returns its pid.
  func launch(_ name: String, command: [String], background: Bool, band: Band? = nil) throws -> Int32 {
    var request = ControlRequest(verb: .launch, app: name)
    request.command = command
    request.background = background
    request.band = band
    guard let pid = try sendAccepted(request).app?.status.pid else {
      throw BenchError("launch \(name): no pid in the answer")
    }
    return pid
  }

  func apps() throws -> [String: AppInfo] {
    Dictionary(
      uniqueKeysWithValues: (try sendAccepted(ControlRequest(verb: .ps)).apps ?? []).map { ($0.status.name, $0) })
  }

  func status() throws -> StatusInfo {
    guard let status = try sendAccepted(ControlRequest(verb: .status)).status else {
      throw BenchError("status: no answer")
    }
    return status
  }
}

extension ControlClient {
  /// Times `status` round trips one after another, from the request written to the answer read (ms each), until
  /// `done` (asked after every round trip, with the times so far) says so.
  func statusRoundTrips(until done: ([Double]) throws -> Bool) throws -> [Double] {
    let line = try encode(ControlRequest(verb: .status))
    var times: [Double] = []
    repeat {
      let sent = MonotonicTime.now()
      guard try send(line: line).ok else { throw BenchError("status refused") }
      times.append(MonotonicTime.milliseconds(from: sent, to: MonotonicTime.now()))
    } while try !done(times)
    return times
  }

  /// The value of one sample without labels in jetsamd's Prometheus exposition (`metrics`, format `prometheus`).
  func prometheusValue(_ name: String) throws -> Double {
    var request = ControlRequest(verb: .metrics)
    request.format = "prometheus"
    guard let value = prometheusSample(name, in: try sendAccepted(request).exposition ?? "") else {
      throw BenchError("metrics: no \(name) in the exposition")
    }
    return value
  }
}
