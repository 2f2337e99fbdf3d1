/// What an app that holds file locks as it is suspended gets.
public enum LockedFileAction: String, Sendable, Codable, Equatable, CaseIterable {
  /// iOS: killed as `suspendedWithLockedFile` (`RUNNINGBOARD 0xdead10cc`), so that it cannot block others while it
  /// sleeps.
  case kill
  /// Android's freezer: left running in the background, and the suspension tried again later.
  case `defer`
  /// Suspended with its locks.
  case ignore
}
