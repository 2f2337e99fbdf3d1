import JetsamValues
import JetsamWire

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

/// Whether an app's acknowledgements are expected (and watched by the lifecycle watchdog).
public enum AcknowledgementMode: String, Sendable, Codable, Equatable {
  /// Once the app has sent a valid message on its channel.
  case auto
  /// From launch: an app that never answers is a hung app.
  case always
  /// Never: the app's acknowledgements are accepted but nothing is watched.
  case never
}

/// What the shell does for an app that cannot answer a lifecycle event itself.
public enum AppHook: Sendable, Equatable {
  /// Send this signal to every process of the app, fire-and-forget (the event is not watched for it).
  case signal(Signal)
  /// Run the app's configured command for the event; its end (``PolicyEvent/hookEnded(app:pid:event:at:)``)
  /// acknowledges the event, within `timeout` (nil: the event's own watchdog deadline).
  case command(timeout: Duration?)
}

/// What a launch is told about the app's previous exit (`JETSAM_PREVIOUS_EXIT`, didFinishLaunching's fields).
public struct PreviousExit: Sendable, Equatable {
  /// The MetricKit reason of the previous exit.
  public var reason: ExitReason
  /// The coarse state it died in.
  public var state: String
  /// Its wall-clock time (RFC 3339), as recorded.
  public var time: String
  /// The state summary it left, handed back to the new launch.
  public var summary: String?

  public init(reason: ExitReason, state: String, time: String, summary: String?) {
    self.reason = reason
    self.state = state
    self.time = time
    self.summary = summary
  }

  init(_ record: ExitRecord) {
    self.init(reason: record.reason, state: record.state, time: record.time, summary: record.stateSummary)
  }
}

/// Which digest of its state an app reports: the one it saved before going away, the one a relaunch restored,
/// or the one it shows on its return to the foreground without a relaunch. The protocol's `phase=` values, from
/// JetsamWire.
public typealias DigestPhase = StateDigestPhase

/// Whether the state a launch restored is the one its previous launch saved.
public enum RestorationVerdict: String, Sendable, Codable, Equatable {
  /// The restored digest equals the saved one.
  case match
  /// They differ: the app lost or corrupted its state.
  case mismatch
  /// A saved digest is known but nothing was restored yet (the launch deadline has not passed).
  case pending
  /// The app reported what it restored, but never what it left: its save does not report (or does not run).
  case unsaved
  /// After a kill or crash that left a saved digest, the relaunch reported nothing restored within its launch
  /// deadline: the app does not restore (it starts from scratch, or it restores without saying so).
  case lost
}
