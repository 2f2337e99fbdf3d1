import JetsamCore
import JetsamValues
import Testing

@Suite struct ExitClassificationTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var end: ProcessEnd
    var requested: RequestedKill? = nil
    var sentTerminate = false
    var oomKilled = false
    var reason: ExitReason
    var code: String
    var by: ExitAgent
    var testDescription: String { "\(end) requested=\(String(describing: requested)) → \(code) by \(by)" }
  }

  static func signal(_ number: Int32) -> ProcessEnd { .signaled(signal: number, dumpedCore: false) }
  static func signal(_ signal: Signal) -> ProcessEnd { .signaled(signal: signal.rawValue, dumpedCore: false) }

  static let cases: [Case] = [
    // Exits nobody asked for.
    Case(end: .exited(code: 0), reason: .normalAppExit, code: "EXIT 0", by: .exit),
    Case(end: .exited(code: 3), reason: .abnormal, code: "EXIT 3", by: .exit),
    Case(end: .exited(code: 255), reason: .abnormal, code: "EXIT 255", by: .exit),
    Case(end: signal(.segmentationFault), reason: .badAccess, code: "SIGNAL 0xb", by: .signal),
    Case(
      end: .signaled(signal: Signal.segmentationFault.rawValue, dumpedCore: true), reason: .badAccess,
      code: "SIGNAL 0xb", by: .signal),
    Case(end: signal(.busError), reason: .badAccess, code: "SIGNAL 0x7", by: .signal),
    Case(end: signal(.illegalInstruction), reason: .illegalInstruction, code: "SIGNAL 0x4", by: .signal),
    Case(end: signal(.abort), reason: .abnormal, code: "SIGNAL 0x6", by: .signal),
    Case(end: signal(.trap), reason: .abnormal, code: "SIGNAL 0x5", by: .signal),
    Case(end: signal(.kill), reason: .abnormal, code: "SIGNAL 0x9", by: .signal),
    Case(end: signal(.terminate), reason: .abnormal, code: "SIGNAL 0xf", by: .signal),
    Case(end: signal(31), reason: .abnormal, code: "SIGNAL 0x1f", by: .signal),
    // The cgroup OOM killer.
    Case(
      end: signal(.kill), oomKilled: true, reason: .memoryResourceLimit, code: "JETSAM per-process-limit",
      by: .memoryLimit),
    Case(end: signal(.segmentationFault), oomKilled: true, reason: .badAccess, code: "SIGNAL 0xb", by: .signal),
    // Our kills, when our SIGKILL is what ended the process.
    Case(end: signal(.kill), requested: .jetsam, reason: .memoryPressure, code: "JETSAM memory-pressure", by: .jetsam),
    Case(
      end: signal(.kill), requested: .jetsam, oomKilled: true, reason: .memoryPressure,
      code: "JETSAM memory-pressure", by: .jetsam),
    Case(
      end: signal(.kill), requested: .terminateEscalation, sentTerminate: true, reason: .abnormal,
      code: "JETSAM terminate-timeout", by: .request),
    Case(
      end: signal(.kill), requested: .user(.appWatchdog), reason: .appWatchdog,
      code: "RUNNINGBOARD 0x8badf00d", by: .request),
    // The policy's own kills.
    Case(
      end: signal(.kill), requested: .watchdog(.didEnterBackground, seconds: 5), reason: .appWatchdog,
      code: "RUNNINGBOARD 0x8badf00d", by: .jetsam),
    Case(
      end: signal(.kill), requested: .backgroundTaskTimeout(["upload"]), reason: .backgroundTaskAssertionTimeout,
      code: "RUNNINGBOARD 0x2182bad2", by: .jetsam),
    Case(
      end: signal(.kill), requested: .lockedFile([]), reason: .suspendedWithLockedFile,
      code: "RUNNINGBOARD 0xdead10cc", by: .jetsam),
    // Ended while nobody watched.
    Case(end: .unobserved, reason: .abnormal, code: "JETSAM exited-unsupervised", by: .unobserved),
    Case(end: .unobserved, requested: .jetsam, reason: .memoryPressure, code: "JETSAM memory-pressure", by: .jetsam),
    // Our kill, but the process ended some other way first.
    Case(end: .exited(code: 0), requested: .jetsam, reason: .normalAppExit, code: "EXIT 0", by: .exit),
    Case(end: signal(.segmentationFault), requested: .jetsam, reason: .badAccess, code: "SIGNAL 0xb", by: .signal),
    // A graceful terminate honoured.
    Case(end: .exited(code: 0), sentTerminate: true, reason: .normalAppExit, code: "JETSAM terminate", by: .request),
    Case(end: signal(.terminate), sentTerminate: true, reason: .normalAppExit, code: "JETSAM terminate", by: .request),
    Case(end: .exited(code: 1), sentTerminate: true, reason: .abnormal, code: "EXIT 1", by: .exit),
    Case(end: signal(.abort), sentTerminate: true, reason: .abnormal, code: "SIGNAL 0x6", by: .signal),
    Case(end: signal(.kill), sentTerminate: true, reason: .abnormal, code: "SIGNAL 0x9", by: .signal),
  ]

  @Test(arguments: cases)
  func classify(c: Case) {
    let result = ExitClassification.classify(
      c.end, requestedKill: c.requested, sentTerminate: c.sentTerminate, oomKilled: c.oomKilled)
    #expect(result == ExitClassification(reason: c.reason, terminationReason: c.code, endedBy: c.by))
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

  @Test("A user kill is recorded with the reason asked for, as a request's", arguments: userKillCodes)
  func userKill(reason: ExitReason, code: String) {
    let result = ExitClassification.classify(
      .signaled(signal: Signal.kill.rawValue, dumpedCore: false), requestedKill: .user(reason), sentTerminate: false,
      oomKilled: false)
    #expect(result == ExitClassification(reason: reason, terminationReason: code, endedBy: .request))
  }

  @Test("jetsam's own kills are its policy's and the kernel's at its cap; requests, signals and exits are not")
  func jetsamKills() {
    #expect(ExitAgent.allCases.filter(\.isJetsamKill) == [.jetsam, .memoryLimit])
  }
}
