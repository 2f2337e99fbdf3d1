import JetsamValues

/// Why a process ended, in the words of an exit record: the MetricKit reason and the namespaced code, and who
/// ended it.
public struct ExitClassification: Sendable, Equatable {
  /// The MetricKit exit reason.
  public var reason: ExitReason
  /// Namespace and code, e.g. `JETSAM memory-pressure`, `SIGNAL 0xb`, `EXIT 3`.
  public var terminationReason: String
  /// Who ended it.
  public var endedBy: ExitAgent

  /// A classification from its parts.
  public init(reason: ExitReason, terminationReason: String, endedBy: ExitAgent) {
    self.reason = reason
    self.terminationReason = terminationReason
    self.endedBy = endedBy
  }

  /// Classifies a process's end.
  ///
  /// - Parameters:
  ///   - end: how the kernel says the process ended.
  ///   - requestedKill: the kill the policy asked for, if any.
  ///   - sentTerminate: whether the policy sent a graceful terminate (SIGTERM).
  ///   - oomKilled: whether the kernel's OOM killer acted in the app's own cgroup.
  public static func classify(
    _ end: ProcessEnd, requestedKill: RequestedKill?, sentTerminate: Bool, oomKilled: Bool
  ) -> ExitClassification {
    // An unobserved end of a process we had asked to kill is taken to be that kill (our SIGKILL went out).
    let killedBySIGKILL = end.terminatingSignal == .kill || (end == .unobserved && requestedKill != nil)

    // Our own SIGKILL is the one that landed: the kill we asked for names the reason. A process that died
    // some other way first (exited, crashed) is classified by what really happened.
    if killedBySIGKILL, let requestedKill {
      switch requestedKill {
      case .jetsam:
        return ExitClassification(
          reason: .memoryPressure, terminationReason: "JETSAM memory-pressure", endedBy: .jetsam)
      case .user(let reason):
        return ExitClassification(reason: reason, terminationReason: reason.requestedKillCode, endedBy: .request)
      case .terminateEscalation:
        return ExitClassification(reason: .abnormal, terminationReason: "JETSAM terminate-timeout", endedBy: .request)
      case .watchdog: return policyKill(.appWatchdog)
      case .backgroundTaskTimeout: return policyKill(.backgroundTaskAssertionTimeout)
      case .cpuLimit: return policyKill(.cpuResourceLimit)
      case .lockedFile: return policyKill(.suspendedWithLockedFile)
      }
    }
    // Nobody in jetsam sent this SIGKILL, but the cgroup's OOM killer fired: the app hit its own cap.
    if killedBySIGKILL && oomKilled {
      return ExitClassification(
        reason: .memoryResourceLimit, terminationReason: "JETSAM per-process-limit", endedBy: .memoryLimit)
    }
    // An app that honours our SIGTERM (exits cleanly or lets the signal kill it) ended normally.
    if sentTerminate && (end == .exited(code: 0) || end.terminatingSignal == .terminate) {
      return ExitClassification(reason: .normalAppExit, terminationReason: "JETSAM terminate", endedBy: .request)
    }
    switch end {
    case .unobserved:
      return oomKilled
        ? ExitClassification(
          reason: .memoryResourceLimit, terminationReason: "JETSAM per-process-limit", endedBy: .memoryLimit)
        : ExitClassification(reason: .abnormal, terminationReason: "JETSAM exited-unsupervised", endedBy: .unobserved)
    case .exited(code: 0):
      return ExitClassification(reason: .normalAppExit, terminationReason: "EXIT 0", endedBy: .exit)
    case .exited(let code):
      return ExitClassification(reason: .abnormal, terminationReason: "EXIT \(code)", endedBy: .exit)
    case .signaled(let signal, _):
      return ExitClassification(reason: signalReason(signal), terminationReason: signalCode(signal), endedBy: .signal)
    }
  }

  /// A kill of jetsam's policy recorded with `reason` and its code.
  private static func policyKill(_ reason: ExitReason) -> ExitClassification {
    ExitClassification(reason: reason, terminationReason: reason.requestedKillCode, endedBy: .jetsam)
  }

  /// The exit reason of a fatal signal nobody in jetsam asked for.
  static func signalReason(_ signal: Int32) -> ExitReason {
    switch Signal(rawValue: signal) {
    case .segmentationFault, .busError: .badAccess
    case .illegalInstruction: .illegalInstruction
    default: .abnormal
    }
  }

  /// `SIGNAL 0x` and the signal number in lowercase hex, as in Apple's crash reports.
  static func signalCode(_ signal: Int32) -> String {
    "SIGNAL 0x" + String(signal, radix: 16)
  }
}

extension ExitReason {
  /// The termination reason recorded when a user kills an app asking for this reason: the code the real
  /// system would have logged for such an exit.
  public var requestedKillCode: String {
    switch self {
    case .memoryPressure: "JETSAM memory-pressure"
    case .memoryResourceLimit: "JETSAM per-process-limit"
    case .cpuResourceLimit: "JETSAM cpu-limit"
    case .appWatchdog: "RUNNINGBOARD 0x8badf00d"
    case .backgroundTaskAssertionTimeout: "RUNNINGBOARD 0x2182bad2"
    case .suspendedWithLockedFile: "RUNNINGBOARD 0xdead10cc"
    case .normalAppExit, .abnormal: "JETSAM requested"
    case .badAccess: ExitClassification.signalCode(Signal.segmentationFault.rawValue)
    case .illegalInstruction: ExitClassification.signalCode(Signal.illegalInstruction.rawValue)
    }
  }
}
