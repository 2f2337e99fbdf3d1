import Glibc
import JetsamCore
import JetsamPlatform
import JetsamWire

/// How an app's process and its hooks' are described to the process launcher: the environment, the working
/// directory, the log their output goes to, whether they get a cgroup namespace of their own. Pure assembly from
/// what the config says; the supervisor starts them.
final class SpawnRequests {
  /// Where app logs go, and below which each app of jetsamd's own user gets a directory to start in (`apps/NAME`).
  let stateDirectory: String
  /// jetsamd's own variables that every app gets (the config's `passEnvironment`, with their values at start).
  var passedEnvironment: [String: String] = [:]
  /// Whether apps and their hooks start in a cgroup namespace of their own (when jetsamd may make one).
  var cgroupNamespaces = false
  /// The crash reporter preloaded into apps (libjetsam-crash.so), when crash diagnostics are on.
  var crashHandler: String?
  /// Whom each app's current launch runs as (nil: jetsamd's own user), so that its hooks and commands run as it
  /// does, never with jetsamd's rights.
  private var users: [String: SpawnUser] = [:]

  init(stateDirectory: String) {
    self.stateDirectory = stateDirectory
  }

  /// Where app `name` starts when its config names no directory: another user's app in that user's home (or /);
  /// an app of jetsamd's own user in its own directory below the state directory (created here, 0700), never in
  /// the state directory itself, whose files an app writing relative paths would overwrite.
  func defaultWorkingDirectory(for user: SpawnUser?, app name: String) throws(SystemError) -> String {
    if let user, user.uid != geteuid() {
      var st = stat()
      return stat(user.home, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR ? user.home : "/"
    }
    var path = stateDirectory
    for part in ["apps", name] {
      path += "/" + part
      if mkdir(path, 0o700) != 0 && errno != EEXIST { throw SystemError.current("mkdir \(path)") }
      // Only a real directory: a symlink planted in its place would send the app elsewhere.
      var st = stat()
      guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
        throw SystemError(code: ENOTDIR, "\(path) is not a directory (a symlink?)")
      }
    }
    return path
  }

  /// The environment an app starts with: its user's (PATH, HOME, USER, LOGNAME; only PATH when the user is not
  /// known), jetsamd's variables that the config passes on, the app's own from the config or the launch, and the
  /// launch's JETSAM_ variables, each over the last. Never jetsamd's whole environment: it is not the app's business
  /// (nor are its secrets).
  func environment(
    for spec: LaunchSpec, user: SpawnUser?, app name: String, launch: Int, previousExit: PreviousExit?,
    crashReporter: String?
  ) -> [String] {
    var environment = user?.cleanEnvironment ?? ["PATH": defaultExecutableSearchPath]
    for (key, value) in passedEnvironment { environment[key] = value }
    for (key, value) in spec.environment { environment[key] = value }
    for (key, value) in AppProtocolCodec.launchEnvironment(app: name, launch: launch, previousExit: previousExit) {
      environment[key] = value
    }
    // The crash reporter goes first among what the app preloads.
    if let crashReporter {
      let variables = CrashSocket.environment(
        library: crashReporter, preloaded: environment["LD_PRELOAD"], swiftBacktrace: environment["SWIFT_BACKTRACE"])
      for (key, value) in variables { environment[key] = value }
    }
    return environment.map { "\($0.key)=\($0.value)" }.sorted()
  }

  /// App `name`'s launch runs as `user` (nil: jetsamd's own user): its hooks and commands will too.
  func launchRuns(_ name: String, as user: SpawnUser?) { users[name] = user }

  /// App `name` has ended for good: nothing more runs as its user.
  func forgetUser(of name: String) { users[name] = nil }

  /// The app's log (its stdout and stderr, and its hooks'), opened for appending.
  func openLog(_ name: String) throws -> FileDescriptor {
    try Self.openLog(name, in: stateDirectory)
  }

  /// App `name`'s log below `stateDirectory`, opened for appending (from any thread).
  static func openLog(_ name: String, in stateDirectory: String) throws -> FileDescriptor {
    // Never through a symlink planted in its place: jetsamd opens it as root.
    try FileDescriptor.open(
      "\(stateDirectory)/logs/\(name).log", O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, mode: 0o640)
  }

  /// The PATH hooks and commands run with (and their program is looked up in): the same for every app, never
  /// jetsamd's own.
  static let commandSearchPath = AppCommands.searchPath

  /// The request that runs `command`, app `name`'s hook for `event` (or one of its commands), in the app's cgroup
  /// and as the app's user; its output goes to `output`, or only its standard error when `stdout` is given (and
  /// neither when `stdoutTakesErrors`: both go to `stdout`).
  func hook(
    _ command: [String], event: AppEventKind, app name: String, workingDirectory: String?,
    cgroup: any AppCgroupControl, oomScoreAdj: Int32, output: FileDescriptor, stdout: FileDescriptor? = nil,
    stdoutTakesErrors: Bool = false
  ) throws -> SpawnRequest {
    var request = SpawnRequest(
      arguments: command,
      environment: [
        "PATH=\(Self.commandSearchPath)", "\(AppEnvironmentVariable.app.rawValue)=\(name)",
        "\(AppEnvironmentVariable.event.rawValue)=\(event.rawValue)",
      ],
      workingDirectory: try workingDirectory ?? defaultWorkingDirectory(for: users[name], app: name),
      user: users[name], cgroupDirectory: cgroup.spawnDirectory, joinProcsFiles: cgroup.joinProcsFiles,
      oomScoreAdj: oomScoreAdj,
      stdout: stdout ?? output, stderr: stdoutTakesErrors ? (stdout ?? output) : output)
    request.ownCgroupNamespace = cgroupNamespaces
    return request
  }
}
