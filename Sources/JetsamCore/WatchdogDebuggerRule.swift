/// What a lifecycle watchdog does to an app whose main process has a tracer attached (a debugger, `strace -p`).
public enum WatchdogDebuggerRule: String, Sendable, Equatable, Codable, CaseIterable {
  /// iOS's: the watchdog is held while the debugger is attached, so that a developer stepping through a handler is
  /// not killed under their breakpoint; once it has gone, the event's deadline runs again from then.
  case hold
  /// The kill comes as without the debugger: what the device does to the app when no debugger is attached.
  case kill
}
