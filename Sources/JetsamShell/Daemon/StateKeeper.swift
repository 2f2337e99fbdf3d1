import JetsamCore

/// Keeps the state file (``DaemonState``) current, so that a successor can re-adopt the apps this daemon
/// leaves running: a new or ended process is written at once (a crash must not lose an app's pid); other
/// changes are coalesced, so a burst of 200 suspends costs one write, not 200.
final class StateKeeper {
  /// How long state changes may wait before the file is rewritten (a crash in this window leaves the previous
  /// state, which re-adoption reconciles with the processes it finds).
  static let saveDelay: Duration = .milliseconds(20)

  let path: String
  private let loop: EventLoop
  private let log: Logger
  /// Builds the state to save.
  private let snapshot: () -> DaemonState
  private let encoder = StateFileEncoder()
  private var dirty = false
  private var timer: EventSource?
  private var timerArmed = false

  init(path: String, loop: EventLoop, log: Logger, snapshot: @escaping () -> DaemonState) {
    self.path = path
    self.loop = loop
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

  /// Writes the file now if anything changed.
  func saveNow() {
    guard dirty else { return }
    dirty = false
    do {
      try snapshot().write(path: path, encoder: encoder)
    } catch {
      log.error("writing \(path): \(error)")
      dirty = true
    }
  }
}
