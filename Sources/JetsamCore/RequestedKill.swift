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
