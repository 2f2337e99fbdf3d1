import JetsamCore
import JetsamShell
import JetsamValues
import JetsamWire

/// Bytes from an app's channel, as jetsamd takes them: cut into bounded lines, each decoded and handed to the
/// policy for a running app (time moving on between lines, so that acknowledgement and task deadlines fall due),
/// and every line the policy answers with encoded.
enum AppLineFuzzing {
  private static let app = FuzzPolicy.app
  private static let pid = FuzzPolicy.pid

  static func run(_ bytes: [UInt8]) {
    var now = Instant.seconds(1)
    var (policy, launched) = FuzzPolicy.running(
      settings: AppSettings(launch: LaunchSpec(command: [FuzzPolicy.app]), acknowledgements: .always), at: now)
    encode(launched)
    var framer = LineFramer()
    for output in framer.append(bytes) {
      now = now.advanced(by: .milliseconds(250))
      guard case .line(let line) = output else {
        encode([.appError(app: app, pid: pid, requestID: nil, code: .tooLong, message: "too long")])
        continue
      }
      do {
        let decoded = try AppProtocolCodec.decode(line)
        handle([.appMessage(app: app, pid: pid, message: decoded.message, at: now), .tick(at: now)], in: &policy)
      } catch {
        encode([.appError(app: app, pid: pid, requestID: error.requestID, code: error.code, message: error.message)])
      }
    }
    // Whatever the app left open ends with it.
    handle(
      [.exited(app: app, pid: pid, end: .exited(code: 0), oomKilled: false, at: now.advanced(by: .seconds(60)))],
      in: &policy)
  }

  private static func handle(_ events: [PolicyEvent], in policy: inout JetsamPolicy) {
    for event in events {
      guard let actions = try? policy.handle(event) else { continue }
      encode(actions)
    }
  }

  /// Encodes the lines the daemon would write back to the app.
  private static func encode(_ actions: [PolicyAction]) {
    for action in actions {
      switch action {
      case .deliver(_, _, let event): _ = AppProtocolCodec.event(event).encoded
      case .reply(_, _, let requestID, let reply):
        _ = AppProtocolCodec.reply(requestID: requestID, reply).encoded
      case .appError(_, _, let requestID, let code, let message):
        _ = AppProtocolCodec.error(code: code, message: message, requestID: requestID).encoded
      default: break
      }
    }
  }
}
