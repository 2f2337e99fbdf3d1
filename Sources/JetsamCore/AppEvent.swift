/// One event sent to an app.
public struct AppEvent: Sendable, Equatable {
  /// Counts up from 1 within a launch; the app acknowledges by this id.
  public var id: Int
  public var kind: AppEventKind
  /// `memoryWarning`: the level that was reached.
  public var level: PressureLevel?
  /// `backgroundTaskWillExpire`: the task and its name.
  public var task: Int?
  public var taskName: String?
  /// `didFinishLaunching`: whether the launch goes to the foreground.
  public var launchesToForeground: Bool?
  /// `didFinishLaunching`: the app's previous exit (nil: a fresh launch).
  public var previousExit: PreviousExit?
  /// `willEnterForeground`, and the `didBecomeActive` that follows it: how long the app was away from the
  /// foreground, and how much of that it spent suspended (its timers did not run then).
  public var backgroundFor: Duration?
  public var suspendedFor: Duration?

  public init(
    id: Int, kind: AppEventKind, level: PressureLevel? = nil, task: Int? = nil, taskName: String? = nil,
    launchesToForeground: Bool? = nil
  ) {
    self.id = id
    self.kind = kind
    self.level = level
    self.task = task
    self.taskName = taskName
    self.launchesToForeground = launchesToForeground
  }
}
