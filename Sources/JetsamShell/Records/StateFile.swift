import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform

/// What jetsamd must remember across its own restart to re-adopt the apps it leaves running: written
/// atomically (temp file, rename) shortly after an app's state changes.
///
/// Not fsync'd, on purpose: the file only has to survive a crash of jetsamd, which leaves the page cache
/// intact; a crash of the machine ends every app too, so there is nothing to re-adopt after it. (Exit records,
/// which must survive anything, are fsync'd one by one in their own log.)
///
/// Instants are CLOCK_MONOTONIC, which runs on across a daemon restart within one boot; the boot id guards
/// against reading a file from an earlier boot (whose processes are gone anyway).
public struct DaemonState: Codable, Sendable {
  /// 2: each app's settings, launch spec included, as the policy keeps them (1 held the app's config; still read).
  public static let currentVersion = 2

  public var version = DaemonState.currentVersion
  public var bootID: String
  public var apps: [SavedApp]
  /// Whether a lab had switched the emulated device to idle and charging (absent in files from before it was kept).
  public var deviceCharging: Bool?
  /// Exit records decided and not yet durable when the state was saved: the apps they end are no longer in
  /// ``apps``, so a successor started after a crash writes each of these that the log does not hold (absent: none).
  public var pendingRecords: [ExitRecord]?

  /// One running app.
  public struct SavedApp: Codable, Sendable, Equatable {
    public var adopted: AppStatus
    /// The process's start time in clock ticks since boot: with the pid it names one process across pid reuse.
    public var startTime: UInt64
    /// How it is configured, its launch spec included (so that it can be relaunched after a kill); nil in a
    /// version-1 file, which has ``spec`` instead.
    public var settings: AppSettings?
    /// Version 1's form: the app's config as written, made into its settings with the reading daemon's defaults.
    public var spec: AppConfig? = nil
  }

  public init(bootID: String, apps: [SavedApp]) {
    self.bootID = bootID
    self.apps = apps
  }

  /// Just the file's version, read before the rest.
  private struct Version: Decodable { var version: Int }

  /// This boot's id (/proc/sys/kernel/random/boot_id).
  public static var currentBootID: String {
    ((try? readTextFile("/proc/sys/kernel/random/boot_id")) ?? "").trimmingWhitespace
  }

  /// Reads the state file; nil when there is none. A damaged file is an error for the caller to log.
  public static func read(path: String) throws -> DaemonState? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let version = try JSONDecoder().decode(Version.self, from: data).version
    guard (1...currentVersion).contains(version) else { throw StateFileVersionError(found: version) }
    return try JSONDecoder().decode(DaemonState.self, from: data)
  }
}
