import Dispatch
import JetsamPlatform

/// Copies what a hook or command printed into its app's log. Their output is read through a pipe (the exit record
/// keeps it, ``CommandRunRecord``), so it no longer reaches the log by itself; users read the log, so each run's
/// output is appended there too, as it was before.
///
/// The appends run on a serial queue of their own, never on the loop: a write to a file can wait on the disk, and
/// under memory pressure (this daemon's whole subject) on dirty-page throttling. Serial, so that runs land in the
/// order they ended. Fire and forget: a log that cannot be written loses the copy, which the exit record still has.
final class AppLogCopies: Sendable {
  private let stateDirectory: String
  private let queue = DispatchQueue(label: "jetsamd.app-logs", qos: .utility)

  init(stateDirectory: String) {
    self.stateDirectory = stateDirectory
  }

  /// Appends `output` (a run's, ending with a newline added when it has none) to app `name`'s log.
  func append(_ output: String, toLogOf name: String) {
    guard !output.isEmpty else { return }
    let text = output.hasSuffix("\n") ? output : output + "\n"
    queue.async { [stateDirectory] in
      guard let log = try? SpawnRequests.openLog(name, in: stateDirectory) else { return }
      defer { log.close() }
      try? log.writeText(text)
    }
  }
}
