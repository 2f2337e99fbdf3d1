import JetsamCore
import JetsamPlatform
import Testing

@testable import JetsamShell

/// Exit records on their way to the log: one write at a time, in order, each told only once durable, its app's cgroup
/// held until then; what cannot be written is kept and tried again on a timer.
@Suite("Record queue")
struct RecordQueueTests {
  /// Keeps the names of the cgroups let go, in order.
  final class Reaper: CgroupRemoval {
    private(set) var removed: [String] = []
    func remove(_ cgroup: any AppCgroupControl) { removed.append(cgroup.name) }
  }

  final class Harness {
    let loop = FakeLoop()
    let sink = FakeRecords()
    let reaper = Reaper()
    let inbox = RecordingInbox()
    let queue: RecordQueue
    /// The apps whose records were told durable, in order.
    var written: [String] { inbox.recorded.map(\.app) }
    var released: [String] { reaper.removed }
    var backlogs: Int { inbox.backlogsWritten }

    init() {
      queue = RecordQueue(loop: loop, sink: sink, log: Logger(threshold: .error), reaper: reaper, inbox: inbox)
    }

    /// Queues app `name`'s record, holding a cgroup named after it.
    func add(_ name: String, launch: Int = 1) {
      var record = AppSupervisorTests.record(name)
      record.launch = launch
      queue.add(record, holding: FakeCgroup(name: name, limits: AppLimits()))
    }
  }

  @Test("one write at a time, in order; each record told and its cgroup let go only once durable")
  func inOrder() {
    let harness = Harness()
    harness.sink.holding = true
    harness.add("a")
    harness.add("b")
    #expect(harness.sink.inFlight.map(\.record.app) == ["a"], "the second waits for the first")
    #expect(harness.written.isEmpty && harness.released.isEmpty)
    #expect(harness.queue.unwritten.map(\.app) == ["a", "b"])
    harness.sink.finishWrites()
    #expect(harness.written == ["a"] && harness.released == ["a"])
    #expect(harness.sink.inFlight.map(\.record.app) == ["b"])
    harness.sink.finishWrites()
    #expect(harness.written == ["a", "b"] && harness.released == ["a", "b"])
    #expect(harness.queue.unwritten.isEmpty && harness.backlogs == 0, "nothing had to wait: no backlog to tell")
  }

  @Test("a durable record is told to the policy first, then to the daemon")
  func policyFirst() {
    let harness = Harness()
    harness.add("a")
    #expect(harness.inbox.kinds == ["observed", "recordDurable"])
    #expect(harness.inbox.events.map { if case .exitRecorded(let record) = $0 { record.app } else { "" } } == ["a"])
  }

  @Test("a record the log refuses is kept and tried again every second; the backlog is told once it is written")
  func retries() {
    let harness = Harness()
    harness.sink.failing = true
    harness.add("a")
    #expect(harness.queue.isRetrying && harness.sink.attempts == 1)
    // A new record tries the first again (the disk may have room now), never itself before it.
    harness.add("b")
    #expect(harness.sink.attempts == 2 && harness.sink.records.isEmpty)
    harness.loop.advance(by: .milliseconds(999))
    #expect(harness.sink.attempts == 2)
    harness.loop.advance(by: .milliseconds(1))
    #expect(harness.sink.attempts == 3 && harness.written.isEmpty)
    #expect(harness.released.isEmpty, "a cgroup is held while its record is not durable")
    harness.sink.failing = false
    harness.loop.advance(by: .seconds(1))
    #expect(harness.written == ["a", "b"] && harness.released == ["a", "b"])
    #expect(!harness.queue.isRetrying && harness.backlogs == 1)
    harness.loop.advance(by: .seconds(5))
    #expect(harness.sink.attempts == 5, "no write without a record")
  }

  @Test("an earlier daemon's records go first, after the one already on its way, and are told as a backlog")
  func takeOver() {
    let harness = Harness()
    harness.sink.holding = true
    harness.add("a")
    harness.queue.takeOver([AppSupervisorTests.record("x"), AppSupervisorTests.record("y")])
    harness.add("b")
    #expect(harness.queue.unwritten.map(\.app) == ["a", "x", "y", "b"])
    for _ in 0..<4 { harness.sink.finishWrites() }
    #expect(harness.written == ["a", "x", "y", "b"])
    #expect(harness.released == ["a", "b"], "taken-over records hold no cgroup")
    #expect(harness.backlogs == 1)
  }

  @Test("a relaunch lets its app's held cgroups go at once; the records stay queued, the last one findable")
  func releaseForRelaunch() {
    let harness = Harness()
    harness.sink.holding = true
    harness.add("a", launch: 1)
    harness.add("b")
    harness.add("a", launch: 2)
    harness.queue.releaseCgroups(of: "a")
    #expect(harness.released == ["a", "a"])
    #expect(harness.queue.unwritten.map(\.app) == ["a", "b", "a"])
    #expect(harness.queue.lastRecord(of: "a")?.launch == 2 && harness.queue.lastRecord(of: "c") == nil)
    for _ in 0..<3 { harness.sink.finishWrites() }
    #expect(harness.released == ["a", "a", "b"], "a cgroup let go is not let go again")
    #expect(harness.written == ["a", "b", "a"])
  }

  @Test(
    "a stop waits for the records: answered at once with none, when all are written, or at its grace; then none is written"
  )
  func whenWritten() {
    let idle = Harness()
    var answered = 0
    idle.queue.whenWritten(within: .seconds(1)) { answered += 1 }
    #expect(answered == 1, "nothing to wait for")

    let busy = Harness()
    busy.sink.holding = true
    busy.add("a")
    busy.queue.whenWritten(within: .seconds(1)) { answered += 1 }
    #expect(answered == 1)
    busy.sink.finishWrites()
    #expect(answered == 2)

    // A full disk: tried again at once and then four times a second while the stop waits, then left for the next
    // start with its cgroup let go.
    let full = Harness()
    full.add("a")
    full.sink.failing = true
    full.add("b")
    let before = full.sink.attempts
    full.queue.whenWritten(within: .seconds(2)) { answered += 1 }
    full.loop.advance(by: .seconds(1))
    #expect(full.sink.attempts - before >= 4, "\(full.sink.attempts - before) attempts in the stop's first second")
    #expect(answered == 2)
    full.loop.advance(by: .seconds(1))
    #expect(answered == 3)
    #expect(full.queue.unwritten.map(\.app) == ["b"])
    // Left for the next start, b is never tried again: the daemon may exit in the middle of that write.
    let left = full.sink.attempts
    full.loop.advance(by: .seconds(5))
    full.add("c")
    #expect(full.sink.attempts == left, "no write after the stop's wait ended")
    #expect(full.queue.unwritten.map(\.app) == ["b", "c"])
    full.queue.releaseAllCgroups()
    #expect(full.released == ["a", "b", "c"])
  }

  @Test("a stop's grace that ends while a write is on its way waits for it, starts no other, and then ends")
  func graceEndsDuringAWrite() {
    let harness = Harness()
    var answered = 0
    harness.sink.holding = true
    harness.add("a")
    harness.add("b")
    harness.queue.whenWritten(within: .seconds(1)) { answered += 1 }
    harness.loop.advance(by: .seconds(1))
    #expect(answered == 0, "a's write is on its way: the daemon must not exit with part of it in the log")
    harness.sink.finishWrites()
    #expect(answered == 1 && harness.written == ["a"])
    #expect(harness.sink.inFlight.isEmpty, "b's write was not started after the grace")
    #expect(harness.queue.unwritten.map(\.app) == ["b"], "a is in the log, not among the leftovers too")

    // A write that never reports (a hung disk) holds the stop one second more, no longer.
    let hung = Harness()
    hung.sink.holding = true
    hung.add("c")
    hung.queue.whenWritten(within: .seconds(1)) { answered += 1 }
    hung.loop.advance(by: .seconds(1))
    #expect(answered == 1)
    hung.loop.advance(by: .seconds(1))
    #expect(answered == 2 && hung.queue.unwritten.map(\.app) == ["c"])
  }
}
