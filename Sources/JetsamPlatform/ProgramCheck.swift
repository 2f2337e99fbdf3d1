internal import CJetsamShim
import Glibc

/// Whether a program can be started: found (on a search path, or as a path relative to a working directory), a
/// regular file, and executable. What a launch checks before it starts anything, so that a command that cannot run
/// is refused with its name rather than failing each time it runs.
///
/// Two ways of asking, for two askers:
/// - ``Asker/caller(name:)``: the kernel answers for this process's own credentials (`stat`, then `access(X_OK)`,
///   which weighs ACLs, `noexec` mounts and every directory on the way as exec will). `jetsam-runnable` asks this
///   way, started as the app's user: a member learns nothing of a place the member could not look into, since a path
///   it cannot reach gets one answer whether or not something is there, and a mode only of a file it could `stat`.
/// - ``Asker/anyone``: whether anyone at all may execute it (one execute bit), read by whoever asks; the config's
///   check at load, made by root of root's own file, before it is known whom an app will run as.
public enum ProgramCheck {
  /// Whose rights decide.
  public enum Asker: Sendable {
    /// This process's credentials, through the kernel; `name` names its user in messages.
    case caller(name: String)
    /// Anyone's: one execute bit is enough (a file with an ACL is not judged).
    case anyone
  }

  /// What keeps `program` from running, in words that start with its name
  /// (`redis-cli: not found in /usr/local/bin:/usr/bin:/bin`, `./save.sh: not executable by user app (mode 0644)`),
  /// or nil when it can run (or cannot be judged).
  ///
  /// - Parameters:
  ///   - program: a name looked up on `searchPath`, or a path (relative to `workingDirectory`) when it holds a `/`.
  ///   - workingDirectory: where the program starts; nil when not known (a relative path is then not judged).
  ///   - asker: whose rights decide.
  public static func problem(
    program: String, searchPath: String, workingDirectory: String?, asker: Asker
  ) -> String? {
    guard program.contains("/") else {
      var refused: String?
      for directory in searchPath.split(separator: ":") where !directory.isEmpty {
        let candidate = directory.hasSuffix("/") ? "\(directory)\(program)" : "\(directory)/\(program)"
        // A directory the asker cannot search hides what is in it, as it does from the shell's own search.
        guard case .found(let info) = status(of: candidate), (info.st_mode & S_IFMT) == S_IFREG else { continue }
        // The shell goes on past a file it may not execute: so does the search, remembering why it was passed.
        guard let why = executionRefusal(candidate, info, asker) else { return nil }
        refused = refused ?? "\(program): \(candidate) is \(why)"
      }
      return refused ?? "\(program): not found in \(searchPath)"
    }
    let path: String
    if program.hasPrefix("/") {
      path = program
    } else {
      guard let workingDirectory else { return nil }
      path = workingDirectory.hasSuffix("/") ? workingDirectory + program : "\(workingDirectory)/\(program)"
    }
    let info: stat
    switch status(of: path) {
    case .found(let found): info = found
    case .missing:
      return program.hasPrefix("/") ? "\(program): no such file" : "\(program): no such file in \(workingDirectory!)"
    case .unreachable(let why):
      // One answer for a file that is there and one that is not: the asker may not know which.
      let who: String =
        switch asker {
        case .caller(let name): "user \(name)"
        case .anyone: "jetsamd"
        }
      return "\(program): cannot be reached by \(who) (\(why))"
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else { return "\(program): not a regular file" }
    return executionRefusal(path, info, asker).map { "\(program): \($0)" }
  }

  private enum Status {
    case found(stat)
    /// It does not exist, and the asker may know that (every directory on the way let it look).
    case missing
    /// The path could not be followed (a directory on the way it may not search, a component not a directory,
    /// a loop): why, in the kernel's words.
    case unreachable(String)
  }

  private static func status(of path: String) -> Status {
    var info = stat()
    if stat(path, &info) == 0 { return .found(info) }
    let error = errno
    return error == ENOENT ? .missing : .unreachable(String(cString: strerror(error)))
  }

  /// Why the asker may not execute the regular file at `path`, or nil when it may.
  private static func executionRefusal(_ path: String, _ info: stat, _ asker: Asker) -> String? {
    switch asker {
    case .caller:
      guard access(path, X_OK) != 0 else { return nil }
      var mount = statvfs()
      // ST_NOEXEC (8 in <sys/statvfs.h>): an anonymous enum there, which Swift does not import.
      if statvfs(path, &mount) == 0 && mount.f_flag & 8 != 0 {
        return "on a file system mounted noexec"
      }
    case .anyone:
      guard info.st_mode & 0o111 == 0 else { return nil }
      // An access ACL may grant what the bits do not: not judged.
      var none: UInt8 = 0
      if getxattr(path, "system.posix_acl_access", &none, 0) >= 0 { return nil }
    }
    // Shown only for a file the asker could stat (it could read the mode itself).
    let octal = String(info.st_mode & 0o7777, radix: 8)
    let mode = String(repeating: "0", count: max(0, 4 - octal.count)) + octal
    switch asker {
    case .caller(let name): return "not executable by user \(name) (mode \(mode))"
    case .anyone: return "not executable (mode \(mode))"
    }
  }
}
