import Dispatch
import Foundation
import Glibc

/// Everything a run must undo — child processes (by pid), cgroups, temporary directories — undone in reverse
/// order when the bench ends, and also on SIGINT/SIGTERM, so that an interrupted run leaves nothing behind.
///
/// The kit's own ``ChildProcess``, ``ScratchCgroup`` and ``JetsamdInstance`` register here; tests, which undo
/// everything in `defer`, never run the registry, and each entry leaves it when its owner cleans up.
///
/// Each entry runs at most once: a step that cleans up after itself removes its entry (``remove(_:)``) or runs
/// it early (``run(_:)``).
public final class CleanupRegistry: @unchecked Sendable {
  /// The one registry of the process.
  public static let shared = CleanupRegistry()

  private let lock = NSLock()
  private var entries: [(id: Int, action: () -> Void)] = []
  private var nextID = 0
  private var signalSources: [DispatchSourceSignal] = []

  /// Registers `action`; returns its id.
  @discardableResult
  public func add(_ action: @escaping () -> Void) -> Int {
    lock.lock()
    defer { lock.unlock() }
    nextID += 1
    entries.append((nextID, action))
    return nextID
  }

  /// Forgets an entry without running it.
  public func remove(_ id: Int) {
    lock.lock()
    entries.removeAll { $0.id == id }
    lock.unlock()
  }

  /// Runs one entry now (if it is still registered) and forgets it.
  public func run(_ id: Int) {
    lock.lock()
    let entry = entries.first { $0.id == id }
    entries.removeAll { $0.id == id }
    lock.unlock()
    entry?.action()
  }

  /// Runs every entry, newest first.
  public func runAll() {
    while true {
      lock.lock()
      let entry = entries.popLast()
      lock.unlock()
      guard let entry else { return }
      entry.action()
    }
  }

  /// On SIGINT or SIGTERM: clean up everything, then exit 130.
  public func installSignalHandlers() {
    for sig in [SIGINT, SIGTERM] {
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: DispatchQueue.global())
      source.setEventHandler { [self] in
        FileHandle.standardError.write(Data("\njetsam-bench: interrupted, cleaning up\n".utf8))
        runAll()
        exit(130)
      }
      source.resume()
      lock.lock()
      signalSources.append(source)
      lock.unlock()
    }
  }
}
