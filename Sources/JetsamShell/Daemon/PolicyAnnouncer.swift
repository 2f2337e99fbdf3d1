import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamWire

/// Tells the world what the policy decided and what the records say: the log, the journal, and the counters the
/// Prometheus exposition reads. It decides nothing; it only words what it is handed.
final class PolicyAnnouncer: PolicyAnnouncements {
  private let log: Logger
  private let journal: Journal
  /// Whether an app is in the config (its series keep their own label whatever the ad-hoc apps do).
  var isConfigured: (String) -> Bool = { _ in false }
  /// What the Prometheus exposition counts (durable records, verdicts), and jetsam's pressure kills timed.
  private(set) var counters = ExitCounters()
  private(set) var killTimings = KillTimings()

  init(log: Logger, journal: Journal) {
    self.log = log
    self.journal = journal
  }

  /// The policy took `event`; its actions follow (the kill timings follow the loop).
  func handled(_ event: PolicyEvent) { killTimings.handled(event) }

  /// The policy decided `action`.
  func performed(_ action: PolicyAction) { killTimings.performed(action) }

  /// A record is durable.
  func recorded(_ record: ExitRecord) {
    journal.record(record)
    var detail = "\(record.cause.reason.rawValue) (\(record.cause.terminationReason)) in \(record.lifecycle.state)"
    detail += " after \(record.lifecycle.stateSeconds.formatted(decimals: 1))s"
    log.notice("exit: \(record.app) pid \(record.pid) #\(record.launch): \(detail)")
    counters.count(record, configured: isConfigured(record.app))
  }

  func watchdogHeld(app: String, pid: Int32, event: AppEventKind, tracer: Int32?) {
    log.notice("\(app) pid \(pid) \(WatchdogHeldText.text(event: event.rawValue, tracer: tracer))")
    journal.watchdogHeld(app: app, pid: pid, event: event, tracer: tracer)
  }

  func levelChanged(from: PressureLevel, to: PressureLevel, available: Int64) {
    log.notice("pressure \(from.name) → \(to.name) (\(ByteSize.format(available)) available)")
    journal.pressureChanged(from: from, to: to, available: available)
  }

  func restorationJudged(
    app: String, launch: Int, verdict: RestorationVerdict, savedDigest: String?, restoredDigest: String?
  ) {
    counters.countVerdict(app: app, verdict: verdict, configured: isConfigured(app))
    log.notice(
      "\(app) launch #\(launch): restoration \(verdict.rawValue) (saved \(savedDigest ?? "-"), "
        + "restored \(restoredDigest ?? "-"))")
    journal.restorationJudged(
      app: app, launch: launch, verdict: verdict, savedDigest: savedDigest, restoredDigest: restoredDigest)
  }

  func resumptionJudged(app: String, launch: Int, judgement: ResumptionJudgement) {
    log.notice(
      "\(app) launch #\(launch): resumption \(judgement.verdict.rawValue) (saved \(judgement.savedDigest) "
        + "\(judgement.stateAgeSeconds.formatted(decimals: 3)) s ago, valid for "
        + "\(judgement.validForSeconds.formatted(decimals: 3)) s; showed \(judgement.resumedDigest))")
    journal.resumptionJudged(app: app, launch: launch, judgement: judgement)
  }

  func suspensionDeferred(app: String, pid: Int32, locks: [HeldLock]) {
    let files = locks.map { "\($0.path) (\($0.type) \($0.access), pid \($0.pid))" }.joined(separator: ", ")
    log.notice("\(app) pid \(pid) holds file locks: suspension deferred (\(files))")
    journal.suspensionDeferred(app: app, pid: pid, locks: locks)
  }

  func socketsDefuncted(app: String, pid: Int32, sockets: [DefunctedSocket], problem: String?) {
    let list = sockets.isEmpty ? "none" : sockets.map(\.summary).joined(separator: ", ")
    if let problem {
      log.warning("\(app) pid \(pid) suspended: sockets defuncted: \(list); not all could be: \(problem)")
    } else {
      log.notice("\(app) pid \(pid) suspended: sockets defuncted: \(list)")
    }
    journal.socketsDefuncted(app: app, pid: pid, sockets: sockets, problem: problem)
  }

  func signposted(app: String, pid: Int32, name: String, phase: SignpostPhase) {
    log.debug("\(app) pid \(pid) signpost \(name) \(phase.rawValue)")
  }

  func acknowledged(app: String, pid: Int32, event: AppEventKind) {
    log.debug("\(app) pid \(pid) acknowledged \(event.rawValue)")
  }
}
