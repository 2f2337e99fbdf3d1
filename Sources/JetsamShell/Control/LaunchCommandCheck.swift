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
/// The files are looked at by `jetsam-runnable`, started as the app's user (``LaunchCommandChecker``): the kernel
/// answers for that user's credentials, so a member is told nothing of a place it could not look into itself. Here
/// only what to ask, and as whom (``resolve()``: the user database may be seconds away, so off the loop).
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

  /// Whom `jetsam-runnable` runs as, and what it is asked.
  struct Asking: Sendable {
    /// The app's user; nil: jetsamd's own credentials (an app without a `user`).
    var user: SpawnUser?
    /// The user's name, for messages.
    var userName: String
    /// Where the app starts (relative programs are found there).
    var directory: String
    var programs: [(label: String, program: String)]
  }

  /// Whom the check runs as and from where, or nil when the app's user is unknown (the launch's own error to give:
  /// the spawn's lookup names it). Blocks: off the loop only.
  func resolve() -> Asking? {
    var directory = workingDirectory
    let user: SpawnUser?
    let userName: String
    if let name = self.user {
      guard let found = try? SpawnUser.lookup(name: name) else { return nil }
      user = found
      userName = name
      if directory == nil && found.uid != geteuid() {
        // As SpawnRequests.defaultWorkingDirectory: another user's app starts in its home, or in /.
        var info = stat()
        directory = stat(found.home, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? found.home : "/"
      }
    } else {
      user = nil
      let uid = geteuid()
      userName = SpawnUser.name(of: uid) ?? "uid \(uid)"
    }
    return Asking(user: user, userName: userName, directory: directory ?? ownDefaultDirectory, programs: programs)
  }
}
