/// How an app is run, as far as the policy's decisions go: its band lift, whether its acknowledgements are
/// watched, and which lifecycle events a hook answers for it.
public struct AppSettings: Sendable, Equatable {
  /// The configured band lift (e.g. `audio`), if any.
  public var bandFloor: Band?
  /// Whether the app's acknowledgements of lifecycle events are expected and watched.
  public var acknowledgements: AcknowledgementMode
  /// Lifecycle events a hook acts on for a program that does not speak the protocol.
  public var hooks: [AppEventKind: AppHook]
  /// Launched by a request rather than declared in the config: once ended, it is remembered only among the
  /// ``PolicyConfig/rememberedEndedApps`` most recently ended such apps.
  public var adHoc: Bool
  /// What holding a file lock at suspension costs the app.
  public var lockedFiles: LockedFileRule

  public init(
    bandFloor: Band? = nil, acknowledgements: AcknowledgementMode = .auto, hooks: [AppEventKind: AppHook] = [:],
    adHoc: Bool = false, lockedFiles: LockedFileRule = LockedFileRule()
  ) {
    self.bandFloor = bandFloor
    self.acknowledgements = acknowledgements
    self.hooks = hooks
    self.adHoc = adHoc
    self.lockedFiles = lockedFiles
  }
}

extension PolicyEvent {
  /// `configure` with settings given one by one (the rest default).
  public static func configure(
    app: String, bandFloor: Band?, launchCount: Int, acknowledgements: AcknowledgementMode = .auto,
    hooks: [AppEventKind: AppHook] = [:], adHoc: Bool = false
  ) -> PolicyEvent {
    .configure(
      app: app,
      settings: AppSettings(bandFloor: bandFloor, acknowledgements: acknowledgements, hooks: hooks, adHoc: adHoc),
      launchCount: launchCount)
  }
}
