import JetsamCore

/// Keeps the state file (``DaemonState``) current, so that a successor can re-adopt the apps this daemon
/// leaves running: a new or ended process is written at once (a crash must not lose an app's pid); other
/// changes are coalesced, so a burst of 200 suspends costs one write, not 200.
final class StateKeeper {
  /// How long state changes may wait before the file is rewritten (a crash in this window leaves the previous
  /// state, which re-adoption reconciles with the processes it finds).
  static let saveDelay: Duration = .milliseconds(20)
  /// How long a coalesced save may be held back while ``isBusy`` says so.
  static let longestHold: Duration = .milliseconds(250)

  let path: String
  private let loop: EventLoop
  private let log: Logger
  /// Builds the state to save.
  private let snapshot: () -> DaemonState
  /// Whether a save now would delay something a client waits for (a batch of stops being checked): writing 1,000
  /// apps takes milliseconds.
  private let isBusy: () -> Bool
  private let encoder = StateFileEncoder()
  private var dirty = false
  private var timer: EventSource?
  private var timerArmed = false
  /// When the coalesced save was first due (it is held back at most ``longestHold`` past it).
  private var dueSince: Instant?

  init(
    path: String, loop: EventLoop, log: Logger, isBusy: @escaping () -> Bool,
    snapshot: @escaping () -> DaemonState
  ) {
    self.path = path
    self.loop = loop
    self.log = log
    self.isBusy = isBusy
    self.snapshot = snapshot
  }

  /// Something the file holds changed; `urgent` when a process started or ended.
  func changed(urgent: Bool) {
    dirty = true
    if urgent { return saveNow() }
    guard !timerArmed else { return }
    if timer == nil {
      timer = try? loop.timer(at: nil) { [unowned self] in self.due() }
    }
    timerArmed = true
    timer?.schedule(at: MonotonicClock.now().advanced(by: StateKeeper.saveDelay))
  }

  private func due() {
    let now = MonotonicClock.now()
    let since = dueSince ?? now
    if isBusy(), since.advanced(by: StateKeeper.longestHold) > now {
      dueSince = since
      timer?.schedule(at: now.advanced(by: .milliseconds(2)))
      return
    }
    timerArmed = false
    dueSince = nil
    saveNow()
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
