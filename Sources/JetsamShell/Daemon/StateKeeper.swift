import JetsamCore
import JetsamPlatform
import JetsamValues
import Synchronization

/// Keeps the state file (``DaemonState``) current, so that a successor can re-adopt the apps this daemon
/// leaves running: a new or ended process is written at once (a crash must not lose an app's pid); other
/// changes are coalesced, so a burst of 200 suspends costs one write, not 200.
///
/// The state is taken and encoded on the loop; the file is written on a thread of its own (a write can block in
/// reclaim under the very memory pressure jetsam acts on, or on a frozen or slow disk). The thread writes the
/// newest state handed to it, without the loop's help: a save handed over just before the loop hangs (or
/// before a slow save returns) still reaches the file, and saves waiting for a slow disk cost one state's memory.
final class StateKeeper {
  /// How long state changes may wait before the file is rewritten (a crash in this window leaves the previous
  /// state, which re-adoption reconciles with the processes it finds).
  static let saveDelay: Duration = .milliseconds(20)
  /// How long a coalesced save may be held back while ``isBusy`` says so.
  static let longestHold: Duration = .milliseconds(250)

  /// Runs a write of the file off the loop and hands its result back on the loop: a thread of its own
  /// (``BackgroundWork``) in the daemon, the test's hand in tests.
  typealias Writer = (
    _ write: @escaping @Sendable () -> Result<Void, SystemError>,
    _ then: @escaping (Result<Void, SystemError>) -> Void
  ) -> Void

  let path: String
  private let loop: any LoopScheduling
  private let log: Logger
  /// Builds the state to save.
  private let snapshot: () -> DaemonState
  /// Whether a save now would delay something a client waits for (a batch of stops being checked): writing 1,000
  /// apps takes milliseconds.
  private let isBusy: () -> Bool
  private let encoder = StateFileEncoder()
  private let writer: Writer
  private var dirty = false
  /// The newest encoded state not yet taken by the writer thread.
  private let newest = NewestState()
  /// Saves handed to the writer thread whose result has not come back.
  private var savesInFlight = 0
  /// Who waits for the file to hold the state as it is now (a stop, before the daemon exits).
  private var waitingForSave: [() -> Void] = []
  private var timer: (any LoopSource)?
  /// The kills noted before their signals: emptied once a save that holds them all is written.
  var killJournal: KillJournal?
  private var timerArmed = false
  /// When the coalesced save was first due (it is held back at most ``longestHold`` past it).
  private var dueSince: Instant?

  /// Keeps the file at `path`, written on a thread of its own.
  convenience init(
    path: String, loop: EventLoop, log: Logger, isBusy: @escaping () -> Bool,
    snapshot: @escaping () -> DaemonState
  ) throws {
    let thread = try BackgroundWork(loop: loop, label: "jetsamd.state", qos: .userInitiated)
    self.init(
      path: path, loop: loop, log: log, isBusy: isBusy, snapshot: snapshot,
      writer: { write, then in thread.run(write, then: then) })
  }

  /// Keeps the file at `path`, timed by `loop` and written through `writer`.
  init(
    path: String, loop: any LoopScheduling, log: Logger, isBusy: @escaping () -> Bool,
    snapshot: @escaping () -> DaemonState, writer: @escaping Writer
  ) {
    self.writer = writer
    self.path = path
    self.loop = loop
    self.log = log
    self.isBusy = isBusy
    self.snapshot = snapshot
  }

  /// What the current run of the policy loop changed of what the file holds, and whether it must be saved at once.
  private var runChanged = false
  private var runChangedUrgently = false

  /// The policy took `event`: summaries, digests, adoptions and durable records change the file; a kill that went out
  /// and the lab's charging switch must be in it at once (a successor records the victim for that kill; the switch
  /// is rare and meant to last).
  func note(_ event: PolicyEvent) {
    switch event {
    case .appMessage, .adopt, .exitRecorded: runChanged = true
    case .setCharging, .killSignalled: runChangedUrgently = true
    default: break
    }
  }

  /// The policy decided `action`: a new or ended process must be in the file at once (a crash must not lose an
  /// app's pid), other state changes soon.
  func note(_ action: PolicyAction) {
    guard case .stateChanged(_, let from, let to, _) = action else { return }
    runChanged = true
    if from == .launching || to == .terminated { runChangedUrgently = true }
  }

  /// The run is over: saves what it changed (at once or coalesced; at once when someone waits for it). Returns
  /// whether it changed anything.
  @discardableResult
  func runEnded() -> Bool {
    guard runChanged || runChangedUrgently else { return false }
    let urgent = runChangedUrgently || !waitingForSave.isEmpty
    runChanged = false
    runChangedUrgently = false
    changed(urgent: urgent)
    return true
  }

  /// Something the file holds changed; `urgent` when a process started or ended.
  func changed(urgent: Bool) {
    dirty = true
    if urgent { return saveNow() }
    guard !timerArmed else { return }
    if timer == nil {
      timer = try? loop.addTimer(at: nil) { [unowned self] in self.due() }
    }
    timerArmed = true
    timer?.schedule(at: loop.now().advanced(by: StateKeeper.saveDelay))
  }

  private func due() {
    let now = loop.now()
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

  /// Hands the state to the writer thread now if anything changed.
  func saveNow() {
    guard dirty else { return }
    dirty = false
    // The kills the journal lists now are in this state (its apps' decisions), or their records are durable.
    let journaled = killJournal?.appended
    do {
      newest.put(try encoder.encode(snapshot()))
    } catch {
      log.error("encoding \(path): \(error)")
      return savesSettled()
    }
    savesInFlight += 1
    writer(
      { [path, newest] in
        // An earlier save may have taken this state already, with whatever was newer.
        guard let bytes = newest.take() else { return .success(()) }
        return Result { () throws(SystemError) in try replaceFile(at: path, with: bytes, durable: false) }
      },
      { [unowned self] (result: Result<Void, SystemError>) in
        self.savesInFlight -= 1
        if case .failure(let error) = result {
          // Tried again with the next change, not at once: a full disk would make it a loop.
          self.log.error("writing \(self.path): \(error)")
          self.dirty = true
        } else if let journaled {
          self.killJournal?.stateSaved(covering: journaled)
        }
        self.savesSettled()
      })
  }

  /// Calls `then` once the file holds the state as it is now, or its save has failed (logged). Changes the current
  /// run of the policy loop has noted are part of "now": they are saved when the run ends (``runEnded()``).
  func whenSaved(_ then: @escaping () -> Void) {
    waitingForSave.append(then)
    if runChanged || runChangedUrgently { return }
    if dirty { return saveNow() }
    savesSettled()
  }

  private func savesSettled() {
    guard savesInFlight == 0 else { return }
    let waiting = waitingForSave
    waitingForSave = []
    for then in waiting { then() }
  }
}

/// The newest encoded state, passed from the loop to the writer thread.
private final class NewestState: Sendable {
  private let bytes = Mutex<[UInt8]?>(nil)

  func put(_ state: [UInt8]) { bytes.withLock { $0 = state } }

  func take() -> [UInt8]? {
    bytes.withLock { bytes in
      defer { bytes = nil }
      return bytes
    }
  }
}
