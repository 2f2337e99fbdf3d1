import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// The check a launch makes of its commands (`ready`, `digest`, the lifecycle hooks' commands) before anything is
/// started: each one's program found on ``AppCommands/searchPath`` (or as a path relative to the app's working
/// directory) and executable by the app's user. A command that cannot run would fail at every run, quietly (a
/// `ready` that never succeeds ends in the watchdog's kill); refused at launch, it is named instead:
/// `--ready: redis-cli: not found in /usr/local/bin:/usr/bin:/bin`.
///
/// It runs off the loop, on the handler's background worker: it looks the app's user up (the user database may be
/// seconds away) and then makes a few `stat` calls, which on a network file system could wait as long.
struct LaunchCommandCheck: Sendable {
  /// Each command's program, named as the launch gave it: `--ready`, `--digest`, `--on EVENT` for a command the
  /// request gave (the words of `jetsamctl launch`, ``ProgramCommands``), `hooks.KEY` for one from the config.
  var programs: [(label: String, program: String)]
  /// Whom the app runs as (nil: jetsamd's own user), and where it starts (nil: the default for its user).
  var user: String?
  var workingDirectory: String?
  /// Where an app of jetsamd's own user starts when its config names no directory (`apps/NAME` below the state
  /// directory).
  var ownDefaultDirectory: String

  /// The commands of `spec` (the request's over the config's) that can be judged; nil when there are none.
  init?(request: ControlRequest, spec: AppConfig, name: String, appsDirectory: String) {
    programs = spec.commandsToCheck.compactMap { key, command in
      // A builtin, a keyword or shell syntax is not judged (ShellCommandLine): its run tells.
      guard let program = ShellCommandLine.program(of: command) else { return nil }
      let given: Bool =
        switch key {
        case AppConfig.readyHook: request.ready != nil
        case AppConfig.digestHook: request.digest != nil
        default: request.hooks?[key] != nil
        }
      let label: String =
        switch key {
        case _ where !given: "hooks.\(key)"
        case AppConfig.readyHook: "--ready"
        case AppConfig.digestHook: "--digest"
        default: "--on \(key)"
        }
      return (label, program)
    }
    guard !programs.isEmpty else { return nil }
    user = spec.user
    workingDirectory = spec.workingDirectory
    ownDefaultDirectory = "\(appsDirectory)/\(name)"
  }

  /// What keeps one of the commands from running (`LABEL: PROGRAM: why`), or nil. Blocks: off the loop only.
  func problem() -> String? {
    let runner: ProgramCheck.User
    var directory = workingDirectory
    if let user {
      // An unknown user is the launch's own error to give (the spawn's lookup names it), not this check's.
      guard let found = try? SpawnUser.lookup(name: user) else { return nil }
      runner = ProgramCheck.User(uid: found.uid, gid: found.gid, groups: found.supplementaryGroups, name: user)
      if directory == nil && found.uid != geteuid() {
        // As SpawnRequests.defaultWorkingDirectory: another user's app starts in its home, or in /.
        var info = stat()
        directory = stat(found.home, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? found.home : "/"
      }
    } else {
      let uid = geteuid()
      let name = SpawnUser.name(of: uid)
      runner = ProgramCheck.User(
        uid: uid, gid: getegid(), groups: name.map { SpawnUser.groupList($0, getegid()) } ?? [],
        name: name ?? "uid \(uid)")
    }
    let start = directory ?? ownDefaultDirectory
    for (label, program) in programs {
      if let problem = ProgramCheck.problem(
        program: program, searchPath: AppCommands.searchPath, workingDirectory: start, user: runner)
      {
        return "\(label): \(problem)"
      }
    }
    return nil
  }
}
