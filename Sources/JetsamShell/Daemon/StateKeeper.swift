import JetsamCore
import Synchronization

/// Keeps the state file (``DaemonState``) current, so that a successor can re-adopt the apps this daemon
/// leaves running: a new or ended process is saved at once (a crash must not lose an app's pid); other
/// changes are coalesced, so a burst of 200 suspends costs one write, not 200.
///
/// The loop only takes the snapshot; encoding and writing 1,000 apps' state takes milliseconds, so it happens on
/// the background queue, in order. A restart writes synchronously before the daemon exits.
final class StateKeeper {
  /// How long state changes may wait before the file is rewritten (a crash in this window leaves the previous
  /// state, which re-adoption reconciles with the processes it finds).
  static let saveDelay: Duration = .milliseconds(20)

  /// Writes snapshots in sequence order from any thread: an older snapshot never replaces a newer one.
  private final class Writer: Sendable {
    let path: String
    /// The sequence number of the snapshot on disk.
    let written = Mutex<Int>(0)
    init(path: String) { self.path = path }

    func write(_ state: DaemonState, sequence: Int) throws {
      try written.withLock { last in
        guard sequence > last else { return }
        try state.write(path: path)
        last = sequence
      }
    }
  }

  var path: String { writer.path }
  private let writer: Writer
  private let loop: EventLoop
  private let background: BackgroundWork
  private let log: Logger
  /// Builds the state to save.
  private let snapshot: () -> DaemonState
  private var sequence = 0
  private var dirty = false
  private var timer: EventSource?
  private var timerArmed = false

  init(path: String, loop: EventLoop, background: BackgroundWork, log: Logger, snapshot: @escaping () -> DaemonState) {
    writer = Writer(path: path)
    self.loop = loop
    self.background = background
    self.log = log
    self.snapshot = snapshot
  }

  /// Something the file holds changed; `urgent` when a process started or ended.
  func changed(urgent: Bool) {
    dirty = true
    if urgent { return saveNow() }
    guard !timerArmed else { return }
    if timer == nil {
      timer = try? loop.timer(at: nil) { [unowned self] in
        self.timerArmed = false
        self.saveNow()
      }
    }
    timerArmed = true
    timer?.schedule(at: MonotonicClock.now().advanced(by: StateKeeper.saveDelay))
  }

  /// Takes a snapshot now, if anything changed, and has it written in the background.
  func saveNow() {
    guard dirty else { return }
    dirty = false
    sequence += 1
    let (state, sequence, writer) = (snapshot(), sequence, writer)
    let write = { @Sendable () -> String? in
      do {
        try writer.write(state, sequence: sequence)
        return nil
      } catch {
        return "\(error)"
      }
    }
    background.run(write) { [weak self] failure in
      guard let self, let failure else { return }
      self.log.error("writing \(self.path): \(failure)")
      self.changed(urgent: false)
    }
  }

  /// Writes the current state before returning (a restart, whose successor reads it at once).
  func saveSynchronously() {
    sequence += 1
    dirty = false
    do {
      try writer.write(snapshot(), sequence: sequence)
    } catch {
      log.error("writing \(path): \(error)")
    }
  }
}
