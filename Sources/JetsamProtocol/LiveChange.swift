import JetsamCore
import JetsamWire

/// One change pushed to a `watch` client (PROTOCOL-CONTROL.md, *Watching*): what a live view or a lab's timeline
/// needs, as it happens. Which fields are set depends on ``kind``.
public struct LiveChange: Codable, Sendable, Equatable {
  /// What happened.
  public enum Kind: String, Codable, Sendable, CaseIterable {
    /// An app moved to another lifecycle state and band: `app`, `pid`, `launch`, `from`, `to`, `band`.
    case state
    /// The device's pressure level changed: `previousLevel`, `level`, `availableBytes`.
    case pressure
    /// A periodic sample (at the watch's `interval`): `availableBytes`, and `memory` (bytes per running app).
    case memory
    /// jetsam or a request killed an app: `app`, `pid`, `launch`, `reason`. The SIGKILL goes out then, or, for a
    /// watchdog kill, once the hang's stacks are taken (within the capture budget); the exit record's
    /// `killSignalledNanoseconds` has its instant.
    case kill
    /// A lifecycle event was delivered to an app (`memoryWarning`, `backgroundTaskWillExpire`, …): `app`, `pid`,
    /// `launch`, `name`, and `level` for a memory warning.
    case appEvent
    /// An app passed a signpost: `app`, `pid`, `launch`, `name`, `phase`.
    case signpost
    /// An app acknowledged a lifecycle event (its handler returned, in time or late; or its command hook ended):
    /// `app`, `pid`, `launch`, `name` (the event).
    case acknowledgement
    /// A diagnostic is being taken (a watchdog's hang, a CPU exception, a crash): `app`, `pid`, `launch`, `name`.
    case diagnostic
    /// A restoration or resumption was judged: `app`, `launch`, `name` (`restoration` or `resumption`), `verdict`.
    case verdict
    /// An exit record is durable: `record`.
    case exit
    /// The emulated device's conditions changed: `charging`.
    case device
    /// A lifecycle watchdog is held because a debugger is attached to the app's main process (iOS holds it then):
    /// `app`, `pid`, `launch`, `name` (the event), `tracerPid`; or it runs again from now because the debugger
    /// went (no `tracerPid`).
    case watchdogHeld
    /// A suspended app's network sockets were defuncted (destroyed, as iOS does): `app`, `pid`, `launch`,
    /// `sockets` (what was), and `problem` when some or all could not be.
    case sockets
  }

  public var kind: Kind
  /// When it happened, on the daemon's CLOCK_MONOTONIC (the same clock as an exit record's
  /// `killSignalledNanoseconds`).
  public var monotonicNanoseconds: Int64
  public var app: String?
  public var pid: Int32?
  public var launch: Int?
  public var from: LifecycleState?
  public var to: LifecycleState?
  public var band: Band?
  public var level: PressureLevel?
  public var previousLevel: PressureLevel?
  public var availableBytes: Int64?
  /// Bytes charged to each running app's cgroup.
  public var memory: [String: Int64]?
  public var reason: ExitReason?
  public var name: String?
  public var phase: SignpostPhase?
  public var verdict: String?
  public var charging: Bool?
  public var record: ExitRecord?
  /// The debugger holding a watchdog (`watchdogHeld`).
  public var tracerPid: Int32?
  /// The sockets defuncted (`sockets`).
  public var sockets: [DefunctedSocket]?
  /// What kept jetsamd from defuncting some or all of them (`sockets`).
  public var problem: String?

  public init(_ kind: Kind, at monotonicNanoseconds: Int64) {
    self.kind = kind
    self.monotonicNanoseconds = monotonicNanoseconds
  }
}

/// The first answer to `watch`: the whole picture, after which only changes follow.
public struct WatchSnapshot: Codable, Sendable, Equatable {
  /// When it was taken, on the daemon's CLOCK_MONOTONIC.
  public var monotonicNanoseconds: Int64
  public var apps: [AppInfo]
  public var pressure: PressureInfo
  public var device: DeviceInfo
  /// Seconds between `memory` changes.
  public var intervalSeconds: Double

  public init(
    monotonicNanoseconds: Int64, apps: [AppInfo], pressure: PressureInfo, device: DeviceInfo, intervalSeconds: Double
  ) {
    self.monotonicNanoseconds = monotonicNanoseconds
    self.apps = apps
    self.pressure = pressure
    self.device = device
    self.intervalSeconds = intervalSeconds
  }
}
