/// When the locks of a suspending app are looked at on their own (``PolicyAction/inspectLocks(app:pid:stage:)``):
/// before its processes are told to stop (under `defer`), or when its suspend timed out before they all stopped.
/// A stop seen complete brings the locks with it (``PolicyEvent/suspendCompleted(app:locks:at:)``).
public enum LockCheckStage: String, Sendable, Codable, Equatable {
  case beforeStop
  case stopped
}
