import JetsamCore
import JetsamShell
import Testing

/// An exit's MESSAGE_ID in the journal: a kill's own ID for the kills jetsam made, told by who ended the app (the
/// record's fact), never by the reason alone, which a `kill --reason` request may name too.
@Suite("Journal message IDs")
struct JournalMessageIDTests {
  static func record(_ reason: ExitReason, endedBy: ExitAgent?) -> ExitRecord {
    ExitRecord(
      app: "a", pid: 1, launch: 1, cause: ExitCause(reason: reason, terminationReason: "X", endedBy: endedBy),
      lifecycle: ExitLifecycle(state: .suspended, aliveSeconds: 1, stateSeconds: 1),
      pressure: ExitPressure(level: .urgent, availableBytes: 0))
  }

  @Test(
    "jetsam's kills have their own IDs; a request naming the same reason is an exit like others",
    arguments: [
      (ExitReason.memoryPressure, ExitAgent.jetsam, Journal.MessageID.jetsamKill),
      (.memoryPressure, .request, Journal.MessageID.appExit),
      (.appWatchdog, .jetsam, Journal.MessageID.watchdogKill),
      (.appWatchdog, .request, Journal.MessageID.appExit),
      (.cpuResourceLimit, .jetsam, Journal.MessageID.cpuLimitKill),
      (.cpuResourceLimit, .request, Journal.MessageID.appExit),
      (.memoryResourceLimit, .memoryLimit, Journal.MessageID.memoryLimitKill),
      (.suspendedWithLockedFile, .jetsam, Journal.MessageID.lockedFileKill),
      (.badAccess, .signal, Journal.MessageID.crash),
      (.abnormal, .exit, Journal.MessageID.crash),
      (.abnormal, .request, Journal.MessageID.appExit),
      (.abnormal, .unobserved, Journal.MessageID.appExit),
      (.normalAppExit, .exit, Journal.MessageID.appExit),
    ])
  func messageID(reason: ExitReason, endedBy: ExitAgent, id: String) {
    #expect(Journal.messageID(for: Self.record(reason, endedBy: endedBy)) == id)
  }
}
