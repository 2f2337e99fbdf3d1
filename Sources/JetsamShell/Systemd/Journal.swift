import CSystemd
import FoundationEssentials
import Glibc
import JetsamCore
import JetsamProtocol

/// Structured journal entries for exit records and pressure changes, so that
/// `journalctl -u jetsamd JETSAM_REASON=memoryPressure` and `journalctl MESSAGE_ID=…` find them.
///
/// Entries go to journald only when it runs (its socket exists); started by hand, records are in the record
/// log and on stderr.
public struct Journal: Sendable {
  /// Fixed MESSAGE_IDs, one per kind of event (generated once with `systemd-id128 new`; never change them).
  public enum MessageID {
    /// jetsam killed an app for memory pressure.
    public static let jetsamKill = "5f1c8a0e2d8b4c6f9a3e7b1d0c4f2a61"
    /// The kernel killed an app at its own memory cap.
    public static let memoryLimitKill = "8b2d4e6f0a1c4e3b9d7f5a2c6e8b0d13"
    /// The watchdog (a hung lifecycle event) or a background-task timeout killed an app.
    public static let watchdogKill = "c3e5a7b9d1f34b2a8c6e0f4a2b8d6e95"
    /// An app crashed (bad access, illegal instruction, abort, another fatal signal, non-zero exit).
    public static let crash = "1a3c5e7f9b2d4f6a8c0e2b4d6f8a0c27"
    /// Any other app exit (normal exits, requested kills, terminates).
    public static let appExit = "e7f9a1b3c5d74e2f8a0b6c4d2e0f8a49"
    /// The device's pressure level changed.
    public static let pressureChange = "9d1f3b5a7c0e4d2b6f8a0c2e4b6d8f31"
    /// A launch's restoration was judged (match, mismatch, unsaved, lost).
    public static let restorationVerdict = "221f3b1897c74a118091bd557e3aa373"
    /// A return to the foreground was judged (fresh, stale).
    public static let resumptionVerdict = "298319db56a1412b83b51d9ab663cd51"
    /// The CPU monitor killed an app that reached its fatal CPU limit (`cpuResourceLimit`).
    public static let cpuLimitKill = "199dbe81117a40b9992e8d5c29d707bc"
    /// An app was killed for holding a file lock as it was suspended (`suspendedWithLockedFile`).
    public static let lockedFileKill = "57b057c517b648c8ad139b8803bbcd8e"
    /// An app went over its CPU budget: a CPU exception diagnostic (non-fatal).
    public static let cpuException = "131437cc41be4443941087f72d742944"
    /// An app wrote more than its disk-write limit within the window: a disk-write exception diagnostic (non-fatal).
    public static let diskWriteException = "5e0c2b7a9d3f4e18b6a1c47f2d8e9b03"
    /// A hang diagnostic: where a lifecycle event's handler hung, taken before the watchdog kill.
    public static let hangDiagnostic = "6d67c11267c141c8989db8e04fa3c5ac"
    /// A crash diagnostic: where the app faulted.
    public static let crashDiagnostic = "4b46ff556933463498511797beeb0b66"
    /// An app's suspension was put off because it holds file locks (`lockedFiles` rule `defer`).
    public static let suspensionDeferred = "d6163abfd7d94d95aa7227987122bda9"
    /// A lifecycle watchdog held because a debugger is attached, or running again once it went.
    public static let watchdogHeld = "13b07965d6454c8fae13e53661e56497"
    /// A suspended app's network sockets were defuncted (config `sockets.atSuspension: defunct`), or could not be.
    public static let socketsDefuncted = "195bc79bd5054248bc9aaad94b6c3fd9"
  }

  public let enabled: Bool

  public init() {
    enabled = access("/run/systemd/journal/socket", F_OK) == 0
  }

  /// A journal that sends only when `enabled` (off in tests, whatever the host runs).
  init(enabled: Bool) {
    self.enabled = enabled
  }

  /// The MESSAGE_ID for an exit record.
  public static func messageID(for record: ExitRecord) -> String {
    // The kills' own IDs are for the kills jetsam made, as who ended the app says, never guessed from the reason: a
    // request that names a kill's reason (`kill --reason memoryPressure`) is a requested kill, an exit like others.
    if record.cause.endedBy == .request { return MessageID.appExit }
    return switch record.cause.reason {
    case .memoryPressure: MessageID.jetsamKill
    case .memoryResourceLimit: MessageID.memoryLimitKill
    case .appWatchdog, .backgroundTaskAssertionTimeout: MessageID.watchdogKill
    case .cpuResourceLimit: MessageID.cpuLimitKill
    case .suspendedWithLockedFile: MessageID.lockedFileKill
    case .badAccess, .illegalInstruction: MessageID.crash
    // An abnormal end the app brought on itself (a non-zero status, a signal jetsam did not send) is a crash; one a
    // request or jetsamd's absence explains is not.
    case .abnormal:
      record.cause.endedBy == .signal || record.cause.endedBy == .exit ? MessageID.crash : MessageID.appExit
    case .normalAppExit: MessageID.appExit
    }
  }

  /// The journal fields of an exit record (also used by tests).
  public static func fields(for record: ExitRecord) -> [(String, String)] {
    let (cause, lifecycle, usage, evidence) = (record.cause, record.lifecycle, record.usage, record.evidence)
    var fields: [(String, String)] = [
      (
        "MESSAGE",
        "\(record.app) (pid \(record.pid), launch \(record.launch)) ended: \(cause.reason.rawValue), \(cause.terminationReason), in \(lifecycle.state)"
      ),
      ("MESSAGE_ID", messageID(for: record)),
      ("PRIORITY", cause.reason == .normalAppExit ? "6" : "5"),
      ("JETSAM_APP", record.app), ("JETSAM_PID", String(record.pid)), ("JETSAM_LAUNCH", String(record.launch)),
      ("JETSAM_REASON", cause.reason.rawValue), ("JETSAM_TERMINATION_REASON", cause.terminationReason),
      ("JETSAM_STATE", lifecycle.state.rawValue),
      ("JETSAM_STATE_SECONDS", lifecycle.stateSeconds.formatted(decimals: 3)),
      ("JETSAM_MEMORY_BYTES", String(usage.memoryBytes)), ("JETSAM_PEAK_MEMORY_BYTES", String(usage.peakMemoryBytes)),
      ("JETSAM_PRESSURE_LEVEL", record.pressure.level.name), ("JETSAM_TIME", record.time),
    ]
    if let signal = cause.signal { fields.append(("JETSAM_SIGNAL", String(signal))) }
    if let code = cause.exitCode { fields.append(("JETSAM_EXIT_CODE", String(code))) }
    if let event = evidence.watchdogEvent { fields.append(("JETSAM_WATCHDOG_EVENT", event)) }
    if let verdict = record.savedState.restoration { fields.append(("JETSAM_RESTORATION", verdict.rawValue)) }
    if let verdict = record.savedState.resumption { fields.append(("JETSAM_RESUMPTION", verdict.rawValue)) }
    if let seconds = evidence.watchdogSeconds {
      fields.append(("JETSAM_WATCHDOG_SECONDS", seconds.formatted(decimals: 3)))
    }
    if let usage = evidence.cpuUsage { fields += cpuFields(usage) }
    if let lock = evidence.lockedFiles?.first { fields += lockFields(lock) }
    return fields
  }

  /// The figures of a CPU monitor's report.
  static func cpuFields(_ usage: CPUUsageReport) -> [(String, String)] {
    [
      ("JETSAM_CPU_SECONDS", usage.cpuSeconds.formatted(decimals: 3)),
      ("JETSAM_CPU_WINDOW_SECONDS", usage.windowSeconds.formatted(decimals: 3)),
      ("JETSAM_CPU_LIMIT_PERCENT", usage.limitPercent.formatted(decimals: 1)),
      ("JETSAM_CPU_SAMPLED_SECONDS", usage.sampledSeconds.formatted(decimals: 3)),
      ("JETSAM_CPU_FATAL", usage.fatal ? "1" : "0"),
      // iOS's own wording, as its crash logs give the figures.
      ("JETSAM_CPU_SUMMARY", usage.summary),
    ]
  }

  /// The first lock of a locked-file kill or deferral (the record or the log has them all).
  static func lockFields(_ lock: HeldLock) -> [(String, String)] {
    [
      ("JETSAM_LOCKED_FILE", lock.path), ("JETSAM_LOCK_TYPE", lock.type), ("JETSAM_LOCK_ACCESS", lock.access),
      ("JETSAM_LOCK_HOLDER_PID", String(lock.pid)),
    ]
  }

  /// An app's suspension was put off because it holds file locks.
  public func suspensionDeferred(app: String, pid: Int32, locks: [HeldLock]) {
    send(
      [
        ("MESSAGE", "\(app) (pid \(pid)) holds \(locks.count) file lock(s): suspension deferred"),
        ("MESSAGE_ID", MessageID.suspensionDeferred), ("PRIORITY", "5"), ("JETSAM_APP", app),
        ("JETSAM_PID", String(pid)),
      ] + (locks.first.map(Journal.lockFields) ?? []))
  }

  /// A suspended app's network sockets were destroyed: how many, the first of them, and what went wrong if anything.
  public func socketsDefuncted(app: String, pid: Int32, sockets: [DefunctedSocket], problem: String?) {
    var fields = [
      (
        "MESSAGE",
        "\(app) (pid \(pid)) suspended: \(sockets.count) socket(s) defuncted"
          + (problem.map { "; not all could be: \($0)" } ?? "")
      ),
      ("MESSAGE_ID", MessageID.socketsDefuncted), ("PRIORITY", problem == nil ? "6" : "4"), ("JETSAM_APP", app),
      ("JETSAM_PID", String(pid)), ("JETSAM_SOCKETS_DEFUNCTED", String(sockets.count)),
      ("JETSAM_SOCKETS", sockets.map(\.summary).joined(separator: "; ")),
    ]
    if let problem { fields.append(("JETSAM_SOCKETS_PROBLEM", problem)) }
    send(fields)
  }

  /// Sends an exit record as a structured entry.
  public func record(_ record: ExitRecord) {
    send(Journal.fields(for: record))
  }

  /// Sends a pressure level change.
  public func pressureChanged(from: PressureLevel, to: PressureLevel, available: Int64) {
    send([
      ("MESSAGE", "memory pressure \(from.name) → \(to.name) (\(available) bytes available)"),
      ("MESSAGE_ID", MessageID.pressureChange), ("PRIORITY", to > from ? "5" : "6"),
      ("JETSAM_PRESSURE_LEVEL", to.name), ("JETSAM_PREVIOUS_LEVEL", from.name),
      ("JETSAM_AVAILABLE_BYTES", String(available)),
    ])
  }

  /// A launch's restoration verdict, with its own fields.
  public func restorationJudged(
    app: String, launch: Int, verdict: RestorationVerdict, savedDigest: String?, restoredDigest: String?
  ) {
    var fields = [
      ("MESSAGE", "\(app) launch #\(launch): restoration \(verdict.rawValue)"),
      ("MESSAGE_ID", MessageID.restorationVerdict), ("PRIORITY", verdict == .match ? "6" : "4"),
      ("JETSAM_APP", app), ("JETSAM_LAUNCH", String(launch)), ("JETSAM_RESTORATION", verdict.rawValue),
    ]
    if let savedDigest { fields.append(("JETSAM_SAVED_DIGEST", savedDigest)) }
    if let restoredDigest { fields.append(("JETSAM_RESTORED_DIGEST", restoredDigest)) }
    send(fields)
  }

  /// A return to the foreground's verdict, with what decided it.
  public func resumptionJudged(app: String, launch: Int, judgement: ResumptionJudgement) {
    send([
      ("MESSAGE", "\(app) launch #\(launch): resumption \(judgement.verdict.rawValue)"),
      ("MESSAGE_ID", MessageID.resumptionVerdict), ("PRIORITY", judgement.verdict == .fresh ? "6" : "4"),
      ("JETSAM_APP", app), ("JETSAM_LAUNCH", String(launch)), ("JETSAM_RESUMPTION", judgement.verdict.rawValue),
      ("JETSAM_SAVED_DIGEST", judgement.savedDigest), ("JETSAM_RESUMED_DIGEST", judgement.resumedDigest),
      ("JETSAM_STATE_AGE_SECONDS", judgement.stateAgeSeconds.formatted(decimals: 3)),
      ("JETSAM_VALID_FOR_SECONDS", judgement.validForSeconds.formatted(decimals: 3)),
    ])
  }

  /// A watchdog held under a debugger (`tracer`), or running again once it went (`tracer` nil).
  public func watchdogHeld(app: String, pid: Int32, event: AppEventKind, tracer: Int32?) {
    var fields = [
      ("MESSAGE", "\(app) (pid \(pid)) \(WatchdogHeldText.text(event: event.rawValue, tracer: tracer))"),
      ("MESSAGE_ID", MessageID.watchdogHeld), ("PRIORITY", "5"), ("JETSAM_APP", app), ("JETSAM_PID", String(pid)),
      ("JETSAM_WATCHDOG_EVENT", event.rawValue),
    ]
    if let tracer { fields.append(("JETSAM_TRACER_PID", String(tracer))) }
    send(fields)
  }

  /// A diagnostic was kept: its kind, id, app and where the attributed thread was.
  public func diagnostic(_ record: DiagnosticRecord, summary: String) {
    let messageID =
      switch record.kind {
      case .crash: MessageID.crashDiagnostic
      case .hang: MessageID.hangDiagnostic
      case .cpuException: MessageID.cpuException
      case .diskWriteException: MessageID.diskWriteException
      }
    var fields = [
      ("MESSAGE", "\(record.app) (pid \(record.pid)) \(record.kind.rawValue) diagnostic: \(summary)"),
      ("MESSAGE_ID", messageID), ("PRIORITY", "4"), ("JETSAM_APP", record.app), ("JETSAM_PID", String(record.pid)),
      ("JETSAM_LAUNCH", String(record.launch)), ("JETSAM_DIAGNOSTIC_ID", record.id),
      ("JETSAM_DIAGNOSTIC_KIND", record.kind.rawValue), ("JETSAM_STACK", summary),
    ]
    let metadata = record.diagnostic.diagnosticMetaData
    if let error = metadata.jetsamCaptureError { fields.append(("JETSAM_CAPTURE_ERROR", error)) }
    if let event = metadata.jetsamLifecycleEvent { fields.append(("JETSAM_WATCHDOG_EVENT", event)) }
    if let cpu = metadata.totalCPUTime { fields.append(("JETSAM_CPU_TIME", cpu)) }
    if let writes = metadata.writesCaused { fields.append(("JETSAM_WRITES_CAUSED", writes)) }
    if let bytes = metadata.jetsamBytesWritten { fields.append(("JETSAM_BYTES_WRITTEN", String(bytes))) }
    send(fields)
  }

  private func send(_ fields: [(String, String)]) {
    guard enabled else { return }
    // sd_journal_send is variadic (not importable); sd_journal_sendv takes an iovec per FIELD=value, each in
    // memory that stays put for the call.
    let buffers = fields.map { field -> UnsafeMutableRawBufferPointer in
      let bytes = Array("\(field.0)=\(field.1)".utf8)
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
      buffer.copyBytes(from: bytes)
      return buffer
    }
    defer { for buffer in buffers { buffer.deallocate() } }
    var iovecs = buffers.map { iovec(iov_base: $0.baseAddress, iov_len: $0.count) }
    _ = sd_journal_sendv(&iovecs, Int32(iovecs.count))
  }
}
