import JetsamValues

/// A kill the policy asked the shell for; it decides how the SIGKILL that follows is recorded.
public enum RequestedKill: Sendable, Equatable, Codable {
  /// Jetsam chose the app as its victim under memory pressure.
  case jetsam
  /// A user asked for the app to be killed and recorded with this reason.
  case user(ExitReason)
  /// A graceful terminate ran out of time and was escalated to SIGKILL.
  case terminateEscalation
  /// The app did not acknowledge this lifecycle event in time (0x8badf00d), after this many seconds in its handler.
  case watchdog(AppEventKind, seconds: Double)
  /// These background tasks were still open when the app's background time ran out (0x2182bad2).
  case backgroundTaskTimeout([String])
  /// The app stayed over its CPU budget past the exception (`JETSAM cpu-limit`), as measured.
  case cpuLimit(CPUUsageReport)
  /// The app held these file locks as it was suspended (0xdead10cc).
  case lockedFile([HeldLock])
}

extension RequestedKill {
  private enum CodingKeys: String, CodingKey { case kind, reason, event, seconds, tasks, usage, locks }

  /// `{"kind":"user","reason":"memoryPressure"}`: one object per kill, its kind and what that kind carries.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .jetsam: try container.encode("jetsam", forKey: .kind)
    case .user(let reason):
      try container.encode("user", forKey: .kind)
      try container.encode(reason, forKey: .reason)
    case .terminateEscalation: try container.encode("terminateEscalation", forKey: .kind)
    case .watchdog(let event, let seconds):
      try container.encode("watchdog", forKey: .kind)
      try container.encode(event, forKey: .event)
      try container.encode(seconds, forKey: .seconds)
    case .backgroundTaskTimeout(let tasks):
      try container.encode("backgroundTaskTimeout", forKey: .kind)
      try container.encode(tasks, forKey: .tasks)
    case .cpuLimit(let usage):
      try container.encode("cpuLimit", forKey: .kind)
      try container.encode(usage, forKey: .usage)
    case .lockedFile(let locks):
      try container.encode("lockedFile", forKey: .kind)
      try container.encode(locks, forKey: .locks)
    }
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    switch try container.decode(String.self, forKey: .kind) {
    case "jetsam": self = .jetsam
    case "user": self = .user(try container.decode(ExitReason.self, forKey: .reason))
    case "terminateEscalation": self = .terminateEscalation
    case "watchdog":
      // A state file from before the seconds were kept has none.
      self = .watchdog(
        try container.decode(AppEventKind.self, forKey: .event),
        seconds: try container.decodeIfPresent(Double.self, forKey: .seconds) ?? 0)
    case "backgroundTaskTimeout": self = .backgroundTaskTimeout(try container.decode([String].self, forKey: .tasks))
    case "cpuLimit": self = .cpuLimit(try container.decode(CPUUsageReport.self, forKey: .usage))
    case "lockedFile": self = .lockedFile(try container.decode([HeldLock].self, forKey: .locks))
    case let other:
      throw DecodingError.dataCorruptedError(
        forKey: .kind, in: container, debugDescription: "unknown kill kind \"\(other)\"")
    }
  }
}

/// A kill that was sent and whose exit has not been seen yet: what it was for, and the pressure when it was
/// decided. Saved in the state file, so that a victim that dies while no daemon runs is still recorded for the
/// kill that ended it (MetricKit's reason, the level that caused it), not as an unexplained exit.
public struct KillInFlight: Sendable, Equatable, Codable {
  public var kill: RequestedKill
  public var level: PressureLevel
  public var availableBytes: Int64

  public init(kill: RequestedKill, level: PressureLevel, availableBytes: Int64) {
    self.kill = kill
    self.level = level
    self.availableBytes = availableBytes
  }
}

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
