/// Where the app is in its lifecycle, as UIKit's `UIApplication.State`.
public enum ApplicationState: String, Equatable, Sendable {
  /// In the foreground and receiving input (after `didBecomeActive`).
  case active
  /// In the foreground but not active: launching, or between `willResignActive`/`willEnterForeground` and the
  /// next event.
  case inactive
  /// In the background (after `didEnterBackground`, or launched into the background). A background app is
  /// suspended without notice once it holds no background task.
  case background
}
