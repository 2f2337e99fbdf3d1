/// When the locks of a suspending app are looked at: before its processes are told to stop, and once they all
/// have (a lock taken in between, or while a freezer was still at work, is caught then).
public enum LockCheckStage: String, Sendable, Codable, Equatable {
  case beforeStop
  case stopped
}
