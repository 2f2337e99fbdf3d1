import JetsamCore
import JetsamPlatform

/// The exit records decided and not yet durable, written one at a time in order through the ``RecordSink``; each is
/// told (to the policy, then as ``OwnerResult/recordDurable(_:)``) only once it survives a crash. What cannot be
/// written (a full disk) is tried again on a timer, never dropped.
///
/// An ended app is not forgotten before its record is durable: its record is in the daemon's state file from the
/// moment the app leaves the running set (``unwritten``), and its cgroup is held until the record is on disk, so that
/// a successor started after a crash finds one or the other and writes the record once.
final class RecordQueue {
  /// How soon a record that could not be written is tried again: while a stop waits, sooner.
  static let retryInterval: Duration = .seconds(1)
  static let stoppingRetryInterval: Duration = .milliseconds(250)
  /// How long a stop whose grace ran out still waits for the write on its way (a hung disk's never ends: its torn
  /// line is cut at the next start).
  static let inFlightGrace: Duration = .seconds(1)

  /// A record on its way, with the cgroup of the app it ends (held until the record is durable).
  private struct Pending {
    var record: ExitRecord
    var cgroup: (any AppCgroupControl)?
  }

  private let loop: any LoopScheduling
  private let sink: any RecordSink
  private let log: Logger
  /// Where a held cgroup goes once it is free (its record is durable, or the app launches again).
  private let reaper: any CgroupRemoval
  /// Where a durable record is told, in order (the policy, then the journal and followers), and a backlog written.
  private let inbox: any ResultInbox

  /// Oldest first: the first may be on its way to the disk; the others wait for it, or for space.
  private var pending: [Pending] = []
  /// Whether the first of ``pending`` is being written (one at a time, so they land in order).
  private var inFlight = false
  private var retry: (any LoopSource)?
  /// Whether the records waiting include some that had to wait: ``OwnerResult/backlogWritten`` is told once they are
  /// all written.
  private var backlogWaiting = false
  /// Who waits for every record to be written (a stop), and the timer that ends their wait.
  private var settled: (then: () -> Void, deadline: any LoopSource)?
  /// Whether writes may start: a stop closes the queue, and a write cut off by the exit would leave part of a line in
  /// the log, and the record both there and among the leftovers.
  private enum Writing {
    /// Records are written as they come, and retried.
    case open
    /// A stop's grace ran out while a write was on its way: no new write starts, and the wait ends once that one has
    /// reported (or ``inFlightGrace`` later).
    case closing
    /// A stop's wait has ended: what is still unwritten goes to the next start (the leftovers file, the state file),
    /// and no write starts any more.
    case closed
  }
  private var writing = Writing.open

  init(
    loop: any LoopScheduling, sink: any RecordSink, log: Logger, reaper: any CgroupRemoval, inbox: any ResultInbox
  ) {
    self.loop = loop
    self.sink = sink
    self.log = log
    self.reaper = reaper
    self.inbox = inbox
  }

  /// The records not durable yet, oldest first.
  var unwritten: [ExitRecord] { pending.map(\.record) }

  /// The newest record of `name` still on its way to the log (the policy hears of it once it is durable).
  func lastRecord(of name: String) -> ExitRecord? { pending.last { $0.record.app == name }?.record }

  /// Whether records wait because the log could not take them (a full disk), not just for their turn.
  var isRetrying: Bool { retry != nil }

  /// Queues `record`, holding `cgroup` (the ended app's) until it is durable.
  func add(_ record: ExitRecord, holding cgroup: (any AppCgroupControl)?) {
    pending.append(Pending(record: record, cgroup: cgroup))
    writeNext()
  }

  /// Takes records an earlier jetsamd could not write, to be written before any new one.
  func takeOver(_ records: [ExitRecord]) {
    guard !records.isEmpty else { return }
    backlogWaiting = true
    // A record on its way to the disk stays first.
    pending.insert(contentsOf: records.map { Pending(record: $0, cgroup: nil) }, at: inFlight ? 1 : 0)
    writeNext()
  }

  /// Lets the cgroups held for app `name`'s records go now (the app launches again and needs its name's cgroup);
  /// its records stay queued and in the state file.
  func releaseCgroups(of name: String) {
    for index in pending.indices where pending[index].record.app == name {
      if let cgroup = pending[index].cgroup { reaper.remove(cgroup) }
      pending[index].cgroup = nil
    }
  }

  /// Lets every held cgroup go (a stop whose records could not all be written: they go to the next start).
  func releaseAllCgroups() {
    for index in pending.indices {
      if let cgroup = pending[index].cgroup { reaper.remove(cgroup) }
      pending[index].cgroup = nil
    }
  }

  /// Calls `then` once every record is durable, or after `grace` with the rest still ``unwritten`` (a stop: what is
  /// left goes to the next start). Records that failed are tried again meanwhile, and sooner. Once `then` is called,
  /// no record is written any more: the daemon is about to exit.
  func whenWritten(within grace: Duration, then: @escaping () -> Void) {
    guard !pending.isEmpty, writing != .closed else { return then() }
    let deadline = try? loop.addTimer(at: loop.now().advanced(by: grace)) { [unowned self] in self.graceEnded() }
    guard let deadline else { return then() }
    if let earlier = settled {
      earlier.deadline.cancel()
      settled = (
        {
          earlier.then()
          then()
        }, deadline
      )
    } else {
      settled = (then, deadline)
    }
    retry?.schedule(at: loop.now())
  }

  /// Writes the records still waiting, oldest first, one at a time.
  private func writeNext() {
    guard !inFlight, writing == .open, let next = pending.first else { return }
    inFlight = true
    sink.write(next.record) { [unowned self] result in
      self.inFlight = false
      switch result {
      case .success: self.recordWritten()
      case .failure(let error): self.recordFailed(error)
      }
      if self.writing == .closing { self.endWait() }
    }
  }

  private func recordWritten() {
    let done = pending.removeFirst()
    if let retry {
      retry.cancel()
      self.retry = nil
      log.notice("exit record log writable again: writing the \(pending.count) record(s) kept for retry")
    }
    if let cgroup = done.cgroup { reaper.remove(cgroup) }
    inbox.post(.observed([.exitRecorded(done.record)]))
    inbox.post(.recordDurable(done.record))
    guard pending.isEmpty else { return writeNext() }
    if backlogWaiting {
      backlogWaiting = false
      inbox.post(.backlogWritten)
    }
    endWait()
  }

  private func recordFailed(_ error: SystemError) {
    backlogWaiting = true
    if retry == nil {
      log.error("exit record log: \(error); \(pending.count) record(s) kept for retry")
      retry = try? loop.addTimer(at: nil) { [unowned self] in self.writeNext() }
    }
    let interval = settled == nil ? RecordQueue.retryInterval : RecordQueue.stoppingRetryInterval
    retry?.schedule(at: loop.now().advanced(by: interval))
  }

  /// A stop's grace is over: its wait ends, once the write on its way (if any) has reported.
  private func graceEnded() {
    // Fired a second time, the write still on its way: a hung disk, and the wait ends all the same.
    guard inFlight, writing == .open else { return endWait() }
    writing = .closing
    settled?.deadline.schedule(at: loop.now().advanced(by: RecordQueue.inFlightGrace))
  }

  /// Ends a stop's wait for the records: all written, or its time is up. Nothing is written after it.
  private func endWait() {
    // Only a stop's wait closes the queue (and only its deadline starts closing it).
    guard let settled else { return }
    self.settled = nil
    writing = .closed
    retry?.cancel()
    retry = nil
    settled.deadline.cancel()
    settled.then()
  }
}
