/// What systemd hears of jetsamd (``ServiceManager``): READY, RELOADING, STOPPING, the descriptor store, and the
/// STATUS= line, sent only when it changes (a status computed after every run of the policy loop mostly does not).
final class ServiceStatus {
  let manager = ServiceManager()
  /// The last STATUS= line sent.
  private var lastLine = ""

  /// Start-up is over: READY with the first status line.
  func ready(_ line: String) {
    lastLine = line
    manager.ready(status: line)
  }

  /// Sends `line` as the status if it is not the one sent last.
  func update(_ line: String) {
    guard line != lastLine else { return }
    lastLine = line
    manager.status(line)
  }
}
