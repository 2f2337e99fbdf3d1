import Foundation
import JetsamCore
import JetsamPlatform
import JetsamValues
import Testing

@testable import JetsamShell

/// The state file kept current for a successor: a new or ended process saved at once, other changes coalesced, a
/// busy daemon's save held back a little, and the writer thread always writing the newest state.
@Suite("State keeper")
struct StateKeeperTests {
  /// Writes handed to the writer thread, run when the test says (the thread, scripted).
  final class HeldWrites {
    private(set) var waiting:
      [(write: @Sendable () -> Result<Void, SystemError>, then: (Result<Void, SystemError>) -> Void)] =
        []

    func hold(
      _ write: @escaping @Sendable () -> Result<Void, SystemError>,
      _ then: @escaping (Result<Void, SystemError>) -> Void
    ) {
      waiting.append((write, then))
    }

    /// Runs every write held, in order, and hands each result back.
    func runAll() {
      let writes = waiting
      waiting = []
      for item in writes { item.then(item.write()) }
    }
  }

  /// What the daemon answers the keeper: whether it is busy, and the state it holds.
  final class Daemon {
    var busy = false
    var bootID = "boot-1"
    private(set) var snapshots = 0

    func snapshot() -> DaemonState {
      snapshots += 1
      return DaemonState(bootID: bootID, apps: [])
    }
  }

  final class Harness {
    let loop = FakeLoop()
    let writes = HeldWrites()
    let daemon = Daemon()
    let directory: String
    let keeper: StateKeeper

    init(path: String? = nil) throws {
      directory = NSTemporaryDirectory() + "jetsam-state-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let (writes, daemon) = (writes, daemon)
      keeper = StateKeeper(
        path: path ?? directory + "/state.json", loop: loop, log: Logger(threshold: .error),
        isBusy: { daemon.busy }, snapshot: daemon.snapshot, writer: { write, then in writes.hold(write, then) })
    }

    var busy: Bool {
      get { daemon.busy }
      set { daemon.busy = newValue }
    }
    var bootID: String {
      get { daemon.bootID }
      set { daemon.bootID = newValue }
    }
    var snapshots: Int { daemon.snapshots }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// The boot id in the file, nil when there is no file.
    func saved() throws -> String? { try DaemonState.read(path: keeper.path)?.bootID }

    /// A run of the loop in which the policy took `event`.
    @discardableResult
    func run(_ event: PolicyEvent) -> Bool {
      keeper.note(event)
      return keeper.runEnded()
    }
  }

  static let message = PolicyEvent.appMessage(app: "a", pid: 10, message: .hello, at: .seconds(1))

  @Test("a new process goes to the file at once, as the snapshot of the moment")
  func newProcessAtOnce() throws {
    let harness = try Harness()
    harness.keeper.note(.stateChanged(app: "a", from: .launching, to: .background, band: .background))
    #expect(harness.keeper.runEnded())
    #expect(harness.writes.waiting.count == 1 && harness.snapshots == 1, "handed to the writer without a timer")
    #expect(try harness.saved() == nil)
    harness.writes.runAll()
    #expect(try harness.saved() == "boot-1")
  }

  @Test("a kill signalled and an ended process are saved at once too")
  func urgentChanges() throws {
    let harness = try Harness()
    harness.run(.killSignalled(app: "a", pid: 10, at: .seconds(1), memory: [:]))
    #expect(harness.writes.waiting.count == 1)
    harness.keeper.note(.stateChanged(app: "a", from: .suspended, to: .terminated, band: .idle))
    harness.keeper.runEnded()
    #expect(harness.writes.waiting.count == 2)
  }

  @Test("the kill journal is emptied once a save that covers every kill it lists is written, and only then")
  func killJournalEmptied() throws {
    let harness = try Harness()
    let journal = KillJournal(directory: harness.directory, log: Logger(threshold: .error))
    harness.keeper.killJournal = journal
    let decision = KillInFlight(kill: .user(.memoryPressure), level: .normal, availableBytes: 0)
    journal.record(app: "a", pid: 10, launch: 1, decision: decision)
    harness.run(.killSignalled(app: "a", pid: 10, at: .seconds(1), memory: [:]))
    // A second kill noted after that save was encoded: the save does not cover it.
    journal.record(app: "b", pid: 11, launch: 1, decision: decision)
    harness.writes.runAll()
    #expect(journal.entriesLeft().keys.sorted() == ["a", "b"], "b's kill is in no saved state yet")
    harness.run(.killSignalled(app: "b", pid: 11, at: .seconds(2), memory: [:]))
    #expect(journal.entriesLeft().count == 2, "not before the save is written")
    harness.writes.runAll()
    #expect(journal.entriesLeft().isEmpty)
  }

  @Test("other changes are coalesced: a burst costs one snapshot and one write, 20 ms after the first")
  func coalesced() throws {
    let harness = try Harness()
    for _ in 0..<3 { #expect(harness.run(Self.message)) }
    harness.keeper.note(.stateChanged(app: "a", from: .background, to: .suspended, band: .idle))
    harness.keeper.runEnded()
    harness.loop.advance(by: StateKeeper.saveDelay - .milliseconds(1))
    #expect(harness.writes.waiting.isEmpty && harness.snapshots == 0)
    harness.loop.advance(by: .milliseconds(1))
    #expect(harness.writes.waiting.count == 1 && harness.snapshots == 1)
  }

  @Test("a run that changed nothing the file holds saves nothing")
  func nothingChanged() throws {
    let harness = try Harness()
    #expect(!harness.run(.memorySampled(available: 1, at: .seconds(1))))
    #expect(!harness.run(.tick(at: .seconds(2))))
    harness.loop.advance(by: .seconds(1))
    #expect(harness.writes.waiting.isEmpty && harness.snapshots == 0)
  }

  @Test("while the daemon is busy a coalesced save is held back, 250 ms at most")
  func heldWhileBusy() throws {
    let harness = try Harness()
    harness.busy = true
    harness.keeper.changed(urgent: false)
    harness.loop.advance(by: StateKeeper.saveDelay + StateKeeper.longestHold - .milliseconds(1))
    #expect(harness.writes.waiting.isEmpty)
    harness.loop.advance(by: .milliseconds(1))
    #expect(harness.writes.waiting.count == 1)

    // Held back only while busy: saved at the next check after that.
    harness.keeper.changed(urgent: false)
    harness.loop.advance(by: StateKeeper.saveDelay + .milliseconds(10))
    #expect(harness.writes.waiting.count == 1)
    harness.busy = false
    harness.loop.advance(by: .milliseconds(2))
    #expect(harness.writes.waiting.count == 2)
  }

  @Test("the writer writes the newest state handed over, once; an older save finds nothing left to write")
  func newestWins() throws {
    let harness = try Harness()
    harness.keeper.changed(urgent: true)
    harness.bootID = "boot-2"
    harness.keeper.changed(urgent: true)
    #expect(harness.writes.waiting.count == 2 && harness.snapshots == 2)
    var saved = false
    harness.keeper.whenSaved { saved = true }
    #expect(!saved, "answered while saves were on their way")
    harness.writes.runAll()
    #expect(try harness.saved() == "boot-2")
    #expect(saved)
  }

  @Test("whenSaved: at once with nothing to save; a change waiting for its timer is saved now")
  func whenSaved() throws {
    let harness = try Harness()
    var answered = 0
    harness.keeper.whenSaved { answered += 1 }
    #expect(answered == 1 && harness.writes.waiting.isEmpty)
    harness.keeper.changed(urgent: false)
    harness.keeper.whenSaved { answered += 1 }
    #expect(harness.writes.waiting.count == 1 && answered == 1, "the stop does not wait for the coalescing timer")
    harness.writes.runAll()
    #expect(answered == 2)
  }

  @Test("whenSaved in the middle of a run waits for what the run changed, which is then saved at once")
  func whenSavedMidRun() throws {
    let harness = try Harness()
    var answered = false
    harness.keeper.note(.stateChanged(app: "a", from: .background, to: .suspended, band: .idle))
    harness.keeper.whenSaved { answered = true }
    #expect(!answered && harness.writes.waiting.isEmpty, "the run's change is not in the file yet")
    harness.keeper.runEnded()
    #expect(harness.writes.waiting.count == 1, "not after the coalescing delay: someone waits for it")
    #expect(!answered)
    harness.writes.runAll()
    #expect(answered)
  }

  @Test("a failed write is tried again with the next change, not at once; a stop waiting for it is answered")
  func failedWrite() throws {
    let harness = try Harness(path: "/nonexistent-jetsam-\(getpid())/state.json")
    var answered = false
    harness.keeper.changed(urgent: true)
    harness.keeper.whenSaved { answered = true }
    harness.writes.runAll()
    #expect(answered, "a failed save is logged, and its waiters answered")
    harness.loop.advance(by: .seconds(1))
    #expect(harness.writes.waiting.isEmpty, "tried again at once: a full disk would make a loop of it")
    harness.keeper.changed(urgent: false)
    harness.loop.advance(by: StateKeeper.saveDelay)
    #expect(harness.writes.waiting.count == 1)
  }
}
