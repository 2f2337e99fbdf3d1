import JetsamCore
import JetsamValues

/// The policy the app-side fuzz targets drive: small thresholds, and one app launched into the foreground and
/// spawned, whose channel or crash socket the bytes come from.
enum FuzzPolicy {
  static let app = "fuzzed"
  static let pid: Int32 = 4242

  /// A policy with `app` running as `pid` since `at`, configured with `settings`, and the actions its launch led to.
  static func running(settings: AppSettings = AppSettings(launch: LaunchSpec(command: [app])), at: Instant) -> (
    JetsamPolicy, [PolicyAction]
  ) {
    var policy = JetsamPolicy(
      config: PolicyConfig(
        thresholds: PressureThresholds(
          warning: .init(enter: 400 << 20, clear: 500 << 20), urgent: .init(enter: 200 << 20, clear: 300 << 20),
          critical: .init(enter: 100 << 20, clear: 150 << 20))))
    var actions: [PolicyAction] = []
    for event: PolicyEvent in [
      .configure(app: app, settings: settings, launchCount: 0), .launch(app: app, foreground: true, at: at),
      .spawned(app: app, pid: pid, at: at),
    ] {
      actions += (try? policy.handle(event)) ?? []
    }
    return (policy, actions)
  }
}
