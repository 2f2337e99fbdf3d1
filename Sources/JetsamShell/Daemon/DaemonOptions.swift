import JetsamConfig
import JetsamPlatform

/// Command-line choices that override the config file.
public struct DaemonOptions: Sendable {
  /// Where the config came from, so that SIGHUP can read it again.
  public var configPath: String?
  /// The profile merged under the config (`--profile`), read again at SIGHUP too.
  public var profilePath: String?
  /// The control socket (`--socket`), overriding `<runtimeDirectory>/jetsamd.sock`.
  public var socketPath: String?
  /// Where records, state and app logs live (`--state-dir`), overriding the config's `stateDirectory`.
  public var stateDirectory: String?
  /// The spawner service's socket, overriding the config's `spawnerSocket` (the systemd unit names it).
  public var spawnerSocket: String?
  /// Stop (as on SIGTERM) once the process that started jetsamd ends (`--exit-with-parent`, see ``ParentWatch``).
  public var exitWithParent = false
  /// Where jetsamd's log goes, and from which priority.
  public var logger = Logger()
  public init() {}

  /// Where records, state and app logs live under `config` (a reload keeps the running config's).
  func stateDirectory(in config: DaemonConfig) -> String { stateDirectory ?? config.stateDirectory }

  /// The control socket's path under `config` (a reload keeps the running config's runtime directory).
  func socketPath(in config: DaemonConfig) -> String { socketPath ?? config.runtimeDirectory + "/jetsamd.sock" }
}
