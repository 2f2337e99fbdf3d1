/// The words for a watchdog held under a debugger, shared by jetsamd's log and journal and `jetsamctl watch`.
public enum WatchdogHeldText {
  /// `watchdog held in didEnterBackground: debugger attached (pid 4242)`, or that it runs again once it went.
  public static func text(event: String, tracer: Int32?) -> String {
    guard let tracer else { return "watchdog running again in \(event): debugger detached" }
    return "watchdog held in \(event): debugger attached (pid \(tracer))"
  }
}
