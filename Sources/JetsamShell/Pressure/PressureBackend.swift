import JetsamCore
import JetsamValues

/// What ``PressureControl`` makes on the device: the monitor whose samples go to the policy, and the balloons of
/// `pressure allocate`. The daemon's is ``DevicePressureBackend`` (kernel notifications, a process per balloon);
/// unit tests hand in one that records what was made and lets them drive it.
protocol PressureBackend {
  /// Starts a monitor reading `counter` against `thresholds`, each reading going to `onSample`.
  func monitor(
    counter: MemoryCounter, thresholds: PressureThresholds,
    onSample: @escaping (_ available: Int64, _ at: Instant) -> Void
  ) throws -> any PressureSampler

  /// Starts the `number`th balloon, charging `bytes` to the device through the program at `helper`; `waiters` are
  /// rechecked once its charge is known.
  func balloon(number: Int, bytes: Int64, helper: String, waiters: ConditionWaiters) throws -> any MemoryBalloon
}
