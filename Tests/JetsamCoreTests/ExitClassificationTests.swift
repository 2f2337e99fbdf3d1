import JetsamCore
import Testing

@Suite struct ExitClassificationTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var end: ProcessEnd
    var requested: RequestedKill? = nil
    var sentTerminate = false
    var oomKilled = false
    var reason: ExitReason
    var code: String
    var testDescription: String { "\(end) requested=\(String(describing: requested)) → \(code)" }
  }

  static func signal(_ number: Int32) -> ProcessEnd { .signaled(signal: number, dumpedCore: false) }
  static func signal(_ signal: Signal) -> ProcessEnd { .signaled(signal: signal.rawValue, dumpedCore: false) }

  static let cases: [Case] = [
    // Exits nobody asked for.
    Case(end: .exited(code: 0), reason: .normalAppExit, code: "EXIT 0"),
    Case(end: .exited(code: 3), reason: .abnormal, code: "EXIT 3"),
    Case(end: .exited(code: 255), reason: .abnormal, code: "EXIT 255"),
    Case(end: signal(.segmentationFault), reason: .badAccess, code: "SIGNAL 0xb"),
    Case(
      end: .signaled(signal: Signal.segmentationFault.rawValue, dumpedCore: true), reason: .badAccess,
      code: "SIGNAL 0xb"),
    Case(end: signal(.busError), reason: .badAccess, code: "SIGNAL 0x7"),
    Case(end: signal(.illegalInstruction), reason: .illegalInstruction, code: "SIGNAL 0x4"),
    Case(end: signal(.abort), reason: .abnormal, code: "SIGNAL 0x6"),
    Case(end: signal(.trap), reason: .abnormal, code: "SIGNAL 0x5"),
    Case(end: signal(.kill), reason: .abnormal, code: "SIGNAL 0x9"),
    Case(end: signal(.terminate), reason: .abnormal, code: "SIGNAL 0xf"),
    Case(end: signal(31), reason: .abnormal, code: "SIGNAL 0x1f"),
    // The cgroup OOM killer.
    Case(
      end: signal(.kill), oomKilled: true, reason: .memoryResourceLimit, code: "JETSAM per-process-limit"),
    Case(end: signal(.segmentationFault), oomKilled: true, reason: .badAccess, code: "SIGNAL 0xb"),
    // Our kills, when our SIGKILL is what ended the process.
    Case(end: signal(.kill), requested: .jetsam, reason: .memoryPressure, code: "JETSAM memory-pressure"),
    Case(
      end: signal(.kill), requested: .jetsam, oomKilled: true, reason: .memoryPressure,
      code: "JETSAM memory-pressure"),
    Case(
      end: signal(.kill), requested: .terminateEscalation, sentTerminate: true, reason: .abnormal,
      code: "JETSAM terminate-timeout"),
    Case(
      end: signal(.kill), requested: .user(.appWatchdog), reason: .appWatchdog,
      code: "RUNNINGBOARD 0x8badf00d"),
    // Our kill, but the process ended some other way first.
    Case(end: .exited(code: 0), requested: .jetsam, reason: .normalAppExit, code: "EXIT 0"),
    Case(end: signal(.segmentationFault), requested: .jetsam, reason: .badAccess, code: "SIGNAL 0xb"),
    // A graceful terminate honoured.
    Case(end: .exited(code: 0), sentTerminate: true, reason: .normalAppExit, code: "JETSAM terminate"),
    Case(end: signal(.terminate), sentTerminate: true, reason: .normalAppExit, code: "JETSAM terminate"),
    Case(end: .exited(code: 1), sentTerminate: true, reason: .abnormal, code: "EXIT 1"),
    Case(end: signal(.abort), sentTerminate: true, reason: .abnormal, code: "SIGNAL 0x6"),
    Case(end: signal(.kill), sentTerminate: true, reason: .abnormal, code: "SIGNAL 0x9"),
  ]

  @Test(arguments: cases)
  func classify(c: Case) {
    let result = ExitClassification.classify(
      c.end, requestedKill: c.requested, sentTerminate: c.sentTerminate, oomKilled: c.oomKilled)
    #expect(result == ExitClassification(reason: c.reason, terminationReason: c.code))
  }

  static let userKillCodes: [(ExitReason, String)] = [
    (.memoryPressure, "JETSAM memory-pressure"), (.memoryResourceLimit, "JETSAM per-process-limit"),
    (.cpuResourceLimit, "JETSAM cpu-limit"), (.appWatchdog, "RUNNINGBOARD 0x8badf00d"),
    (.backgroundTaskAssertionTimeout, "RUNNINGBOARD 0x2182bad2"),
    (.suspendedWithLockedFile, "RUNNINGBOARD 0xdead10cc"), (.normalAppExit, "JETSAM requested"),
    (.abnormal, "JETSAM requested"), (.badAccess, "SIGNAL 0xb"), (.illegalInstruction, "SIGNAL 0x4"),
  ]

  @Test func everyReasonHasAUserKillCode() {
    #expect(Set(Self.userKillCodes.map(\.0)) == Set(ExitReason.allCases))
  }

  @Test("A user kill is recorded with the reason asked for", arguments: userKillCodes)
  func userKill(reason: ExitReason, code: String) {
    let result = ExitClassification.classify(
      .signaled(signal: Signal.kill.rawValue, dumpedCore: false), requestedKill: .user(reason), sentTerminate: false,
      oomKilled: false)
    #expect(result == ExitClassification(reason: reason, terminationReason: code))
  }
}
