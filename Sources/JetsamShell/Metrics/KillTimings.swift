import JetsamCore
import JetsamValues

/// jetsam's memory-pressure kills, timed: from the observation that made jetsam kill (a memory sample past a threshold,
/// a forced level, the previous victim's exit while the level still calls for a kill) to the SIGKILL, and from the
/// SIGKILL to the killed process's exit, when its memory is back. It follows the policy loop: each event the policy
/// takes, then the actions it decided.
struct KillTimings {
  private(set) var killLatency = LatencyHistogram()
  private(set) var memoryBack = LatencyHistogram()
  /// Apps with a pressure kill decided, and when it was observed; then when its SIGKILL went out.
  private var decided: [String: Instant] = [:]
  private var signalled: [String: Instant] = [:]
  /// The instant of the event whose actions are carried out next (the start of a jetsam kill's latency); nil for a
  /// request's kill, which is not jetsam's.
  private var cause: Instant?

  /// The policy took `event`; its actions follow.
  mutating func handled(_ event: PolicyEvent) {
    if case .kill = event { cause = nil } else { cause = event.instant }
    switch event {
    case .exited(let app, _, _, _, let at): exited(app, at: at)
    case .killSignalled(let app, _, let at, _): killSignalled(app, at: at)
    default: break
    }
  }

  /// The policy decided `action` (on the event last handled).
  mutating func performed(_ action: PolicyAction) {
    guard case .kill(let app, _, _, let decision) = action, decision.kill == .jetsam, let cause else { return }
    decided[app] = cause
  }

  /// The SIGKILL went out.
  private mutating func killSignalled(_ app: String, at: Instant) {
    guard let observed = decided.removeValue(forKey: app) else { return }
    killLatency.observe(.nanoseconds(max(0, at.nanoseconds - observed.nanoseconds)))
    signalled[app] = at
  }

  /// The killed process's exit was seen.
  private mutating func exited(_ app: String, at: Instant) {
    decided[app] = nil
    guard let signalledAt = signalled.removeValue(forKey: app) else { return }
    memoryBack.observe(.nanoseconds(max(0, at.nanoseconds - signalledAt.nanoseconds)))
  }
}
