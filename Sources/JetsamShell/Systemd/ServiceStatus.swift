/// What systemd hears of jetsamd (``ServiceManager``): READY, RELOADING, STOPPING, the descriptor store, and the
/// STATUS= line, sent only when it changes (a status computed after every run of the policy loop mostly does not).
final class ServiceStatus {
  /// Where READY and STATUS= go: to systemd through the ``ServiceManager``, to the test in tests.
  struct Notifier {
    /// READY=1 with a status line.
    var ready: (String) -> Void
    /// A STATUS= line.
    var status: (String) -> Void
  }

  let manager: ServiceManager
  private let notifier: Notifier
  /// The last STATUS= line sent.
  private var lastLine = ""

  /// Tells systemd through `manager`.
  init(manager: ServiceManager = ServiceManager()) {
    self.manager = manager
    notifier = Notifier(ready: { manager.ready(status: $0) }, status: { manager.status($0) })
  }

  /// Tells `notifier` instead of systemd.
  init(notifier: Notifier) {
    manager = ServiceManager()
    self.notifier = notifier
  }

  /// Start-up is over: READY with the first status line.
  func ready(_ line: String) {
    lastLine = line
    notifier.ready(line)
  }

  /// Sends `line` as the status if it is not the one sent last.
  func update(_ line: String) {
    guard line != lastLine else { return }
    lastLine = line
    notifier.status(line)
  }
}
