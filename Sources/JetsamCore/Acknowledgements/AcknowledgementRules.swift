import JetsamValues

/// The tunables acknowledgements are watched by: each event's allowance, the SIGTERM's grace, the background grace
/// an idle app's suspension waits for, and what a debugger attached to a hung app does to its watchdog.
struct AcknowledgementRules: Sendable {
  /// Each lifecycle event's allowance, and the background task budgets.
  var timings: LifecycleTimings
  /// How long a SIGTERM'd app has before its SIGKILL.
  var terminateGrace: Duration
  /// How long an idle app stays in the background before it is suspended; nil: until asked.
  var backgroundGrace: Duration?
  /// Whether a watchdog holds while a debugger is attached (iOS: it does).
  var underDebugger: WatchdogDebuggerRule
  /// How often a held watchdog looks again whether the debugger is still attached.
  var debuggerLookInterval: Duration

  /// The rules `config` sets.
  init(_ config: PolicyConfig) {
    timings = config.lifecycle
    terminateGrace = config.terminateGrace
    backgroundGrace = config.backgroundGrace
    underDebugger = config.watchdogUnderDebugger
    debuggerLookInterval = config.debuggerLookInterval
  }
}
