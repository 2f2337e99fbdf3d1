/// Who ended an app's process, as the policy knows it: the fact behind an exit record's reason, so that nobody
/// downstream (metrics, the journal, tests) works it out again from a reason or a termination code.
public enum ExitAgent: String, Codable, Sendable, CaseIterable {
  /// jetsam's policy killed it: memory pressure, the CPU limit, a lifecycle watchdog, a background task past its
  /// time, a file lock held at suspension.
  case jetsam
  /// The kernel killed it at the memory cap jetsam set for it (`JETSAM per-process-limit`).
  case memoryLimit
  /// A request ended it: `terminate` (and its escalation to SIGKILL), `kill --reason`, jetsamd's own stop.
  case request
  /// A fatal signal jetsam did not send: a fault, an abort, or another process's signal.
  case signal
  /// It exited by itself, with any status.
  case exit
  /// It ended while no jetsamd watched, and nothing tells how.
  case unobserved

  /// Whether this is one of jetsam's own kills, made by its policy or at the cap it set (what `jetsam_kills_total`
  /// counts): iOS's jetsam enforces per-process limits itself.
  public var isJetsamKill: Bool { self == .jetsam || self == .memoryLimit }
}
