import JetsamValues

/// What the shell does for an app that cannot answer a lifecycle event itself.
public enum AppHook: Sendable, Equatable, Codable {
  /// Send this signal to every process of the app, fire-and-forget (the event is not watched for it).
  case signal(Signal)
  /// Run `command` in the app's cgroup for the event; its end (``PolicyEvent/hookEnded(app:pid:event:at:)``)
  /// acknowledges the event, within `timeout` (nil: the event's own watchdog deadline).
  case command([String], timeout: Duration?)
}
