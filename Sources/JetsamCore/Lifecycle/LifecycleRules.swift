import JetsamValues

/// The tunables the lifecycle moves by: how many apps share the foreground, how long a background stint lasts
/// before its suspension, and how long a relaunched app has to restore what it left.
struct LifecycleRules: Sendable {
  /// How many apps may hold a foreground slot at once; the earliest arrival leaves first.
  var foregroundSlots: Int
  /// How long an idle app stays in the background before it is suspended; nil: until asked.
  var backgroundGrace: Duration?
  /// How long a relaunch after a kill or a crash has to report the state it restored.
  var restorationAllowance: Duration

  /// The rules `config` sets.
  init(_ config: PolicyConfig) {
    foregroundSlots = config.foregroundSlots
    backgroundGrace = config.backgroundGrace
    restorationAllowance = config.lifecycle.launch
  }
}
