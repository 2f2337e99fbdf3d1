import JetsamCore

/// The control socket's protocol: one JSON object per line each way, over a Unix stream socket.
///
/// A client sends a ``ControlRequest``; the daemon answers each with one ``ControlResponse`` line, in order.
/// `exits` with `follow` then keeps the connection open and sends one ``ControlResponse`` with `event`
/// set for every new exit record. Documented in PROTOCOL-CONTROL.md.
public enum ControlProtocol {
  /// The protocol version this build speaks; requests carry it as `v`.
  public static let version = 1
  /// The longest request line the daemon reads; a longer one is answered with `requestTooLarge`.
  public static let maxRequestBytes = 64 * 1024
}

/// The verbs of the control protocol.
public enum ControlVerb: String, Codable, Sendable, CaseIterable {
  case status, ps, launch, activate, background, suspend, resume, terminate, kill, exits, pressure
  /// The emulated device's conditions: show them, or switch `charging` (idle and charging).
  case device
  /// MetricKit-shaped exit counts per app, from the exit records (`app`, `since`).
  case metrics
  /// The diagnostics kept (hangs, CPU exceptions, crashes), oldest first (`app`, `since`).
  case diagnostics
  /// A snapshot, then every change as it happens on the same connection (`interval`: seconds between memory
  /// samples).
  case watch
  /// Debug only (config `debugRequests: true`): blocks the daemon's event loop for good, to prove that the
  /// systemd watchdog restarts a hung daemon.
  case debugFreeze
}

/// One request line.
public struct ControlRequest: Codable, Sendable, Equatable {
  /// Protocol version (1).
  public var v: Int
  /// What to do.
  public var verb: ControlVerb
  /// The app, for app verbs.
  public var app: String?
  /// Several apps at once (instead of `app`), for the lifecycle verbs: applied all or nothing, and carried out
  /// together.
  public var apps: [String]?
  /// `launch`: an ad-hoc command (argv) for an app not in the config.
  public var command: [String]?
  /// `launch`: extra environment variables.
  public var env: [String: String]?
  /// `launch`: caps and band overriding the config.
  public var memoryLimit: Int64?
  public var cpuLimit: Double?
  public var band: Band?
  /// `launch`: start in the background instead of the foreground.
  public var background: Bool?
  /// `launch`: whether the app's lifecycle events are watched (`auto`, `always`, `never`); default: its config
  /// entry's, else the config's `appAcknowledgements`.
  public var acknowledgements: AcknowledgementMode?
  /// `launch`: what holding file locks at suspension costs the app (`kill`, `defer`, `ignore`); default: its config
  /// entry's, else the config's `lockedFiles`.
  public var lockedFiles: LockedFileAction?
  /// `launch`: what becomes of the app's network sockets when it is suspended (`defunct`, `keep`); default: its
  /// config entry's, else the config's `sockets`.
  public var sockets: SocketsAtSuspension?
  /// `launch`: commands that speak for a program that does not speak the protocol (argv each, run as the app's hooks
  /// run): `ready` succeeds once it is up; `digest` prints a digest of the state it holds, current for
  /// `digestValidFor` seconds; `hooks` runs a command per lifecycle event (by name), its end acknowledging it. Over
  /// the config entry's `hooks`.
  public var ready: [String]?
  public var digest: [String]?
  public var digestValidFor: Double?
  public var hooks: [String: [String]]?
  /// `kill`: the reason to record (default memoryPressure).
  public var reason: ExitReason?
  /// `exits`, `metrics`, `diagnostics`: only what came after this RFC 3339 time.
  public var since: String?
  /// `exits`: keep the connection open and stream new records.
  public var follow: Bool?
  /// `exits`: at most this many records, the newest (default 1,000; 1 to 100,000).
  public var limit: Int?
  /// `exits`: only the records of launches whose restoration was judged (those with `restoration`).
  public var verdicts: Bool?
  /// `pressure`: `get` (default), `set`, `clear`, `allocate`, `release`.
  public var action: String?
  /// `watch`: seconds between the memory samples pushed (0.05 to 60, default 1).
  public var interval: Double?
  /// `metrics`: `metricKit` (default: exit counts per app from the records, in MetricKit's layout) or `prometheus`
  /// (the daemon's state and counters in Prometheus' text format, in `exposition`).
  public var format: String?
  /// `pressure set`: the level to force.
  public var level: PressureLevel?
  /// `pressure allocate`: bytes to charge to the device.
  public var size: Int64?
  /// `device`: the device is idle and charging (true) or not; absent: only show the device.
  public var charging: Bool?
  /// `pressure allocate` and `set`: answer only once the balloon is charged, or jetsam has done what the level
  /// asks (no kill in flight, none left to make, their records durable), waiting at most this many seconds
  /// (then a `timedOut` error).
  public var wait: Double?

  /// Every field a request may carry; the daemon rejects any other (and the compiler keeps this list whole).
  public enum CodingKeys: String, CodingKey, CaseIterable {
    case v, verb, app, apps, command, env, memoryLimit, cpuLimit, band, background, reason, since, follow, action
    case level, size, limit, acknowledgements, wait, verdicts, charging, lockedFiles, interval, format, sockets
    case ready, digest, digestValidFor, hooks
  }

  public init(verb: ControlVerb, app: String? = nil) {
    self.v = ControlProtocol.version
    self.verb = verb
    self.app = app
  }
}

/// An error answer's machine-readable code.
public enum ControlErrorCode: String, Codable, Sendable {
  case badRequest, requestTooLarge, unsupportedVersion, unknownApp, illegalTransition, permissionDenied
  case launchFailed, internalError, tooManyConnections, timedOut, tooMuchUnread
}

/// An error answer.
public struct ControlError: Codable, Sendable, Equatable, Error, CustomStringConvertible {
  public var code: ControlErrorCode
  public var message: String
  public init(_ code: ControlErrorCode, _ message: String) {
    self.code = code
    self.message = message
  }
  public var description: String { message }
}

/// One response line.
public struct ControlResponse: Codable, Sendable {
  public var v: Int = ControlProtocol.version
  /// True on success; false with `error` set.
  public var ok: Bool
  public var error: ControlError?
  /// The verb's result (one of these is set, by verb).
  public var apps: [AppInfo]?
  public var app: AppInfo?
  public var status: StatusInfo?
  public var pressure: PressureInfo?
  public var device: DeviceInfo?
  /// `metrics`: one payload per app.
  public var metrics: [MetricPayload]?
  /// `diagnostics`: the diagnostics kept, oldest first.
  public var diagnostics: [DiagnosticRecord]?
  /// `exits`: newest first.
  public var exits: [ExitRecord]?
  /// `exits`: true when older records were left out (by `limit`, or to keep the answer under 4 MiB).
  public var more: Bool?
  /// Set on streamed lines: `exit` (of `exits --follow`, with `record`) or `change` (of `watch`, with `change`).
  public var event: String?
  public var record: ExitRecord?
  /// `metrics` with `format: "prometheus"`: the exposition text.
  public var exposition: String?
  /// `watch`: the first answer.
  public var watch: WatchSnapshot?
  /// `watch`: a streamed change.
  public var change: LiveChange?

  public init(ok: Bool) { self.ok = ok }

  public static func failure(_ error: ControlError) -> ControlResponse {
    var response = ControlResponse(ok: false)
    response.error = error
    return response
  }
}

/// The daemon's status.
public struct StatusInfo: Codable, Sendable, Equatable {
  public var version: String
  public var uptimeSeconds: Double
  /// `v1` (hybrid: v1 controllers plus the unified hierarchy) or `v2`.
  public var cgroupMode: String
  /// `signal` or `freezer`.
  public var suspendMode: String
  public var deviceCgroup: String
  /// App counts per coarse state.
  public var appsByState: [String: Int]
  public var recordsWritten: Int
  public var recordLog: String
  public init(
    version: String, uptimeSeconds: Double, cgroupMode: String, suspendMode: String, deviceCgroup: String,
    appsByState: [String: Int], recordsWritten: Int, recordLog: String
  ) {
    self.version = version
    self.uptimeSeconds = uptimeSeconds
    self.cgroupMode = cgroupMode
    self.suspendMode = suspendMode
    self.deviceCgroup = deviceCgroup
    self.appsByState = appsByState
    self.recordsWritten = recordsWritten
    self.recordLog = recordLog
  }
}

/// The emulated device's conditions (`device`).
public struct DeviceInfo: Codable, Sendable, Equatable {
  /// Idle and charging: `processing` background tasks run free of the background budget and the CPU monitor.
  public var charging: Bool

  public init(charging: Bool) { self.charging = charging }
}

/// The device's pressure picture.
public struct PressureInfo: Codable, Sendable, Equatable {
  public var level: PressureLevel
  public var forcedLevel: PressureLevel?
  /// `device` (an emulated RAM size) or `host` (the whole machine).
  public var mode: String
  public var ramBytes: Int64
  public var availableBytes: Int64
  public var thresholds: PressureThresholds
  public var balloonBytes: Int64
  public init(
    level: PressureLevel, forcedLevel: PressureLevel?, mode: String, ramBytes: Int64, availableBytes: Int64,
    thresholds: PressureThresholds, balloonBytes: Int64
  ) {
    self.level = level
    self.forcedLevel = forcedLevel
    self.mode = mode
    self.ramBytes = ramBytes
    self.availableBytes = availableBytes
    self.thresholds = thresholds
    self.balloonBytes = balloonBytes
  }
}
