/// How an app's process is started: the program, its environment, directory and user, and its cgroup's caps, as the
/// config (or the launch request) says with the daemon's defaults filled in.
///
/// The policy keeps it with the app (in its ``AppSettings``) and hands it to the shell in each
/// ``PolicyAction/spawn(app:launch:previousExit:spec:)``, so that the shell keeps no table of its own: the spec
/// a process was started with is the one the policy holds for it.
public struct LaunchSpec: Sendable, Equatable, Codable {
  /// The program and its arguments.
  public var command: [String]
  /// The app's own environment variables (over its user's and the daemon's passed-on ones).
  public var environment: [String: String]
  /// Where it starts (nil: the shell's default for its user).
  public var workingDirectory: String?
  /// Whom it runs as (nil: jetsamd's own user).
  public var user: String?
  /// Its cgroup's caps.
  public var limits: AppLimits

  public init(
    command: [String], environment: [String: String] = [:], workingDirectory: String? = nil, user: String? = nil,
    limits: AppLimits = .unlimited
  ) {
    self.command = command
    self.environment = environment
    self.workingDirectory = workingDirectory
    self.user = user
    self.limits = limits
  }
}
