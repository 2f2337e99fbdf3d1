internal import CJetsamShim
import Glibc

/// Whether a program can be started: found (on a search path, or as a path relative to a working directory), a
/// regular file, and executable by the user it would run as. What a launch checks before it starts anything, so
/// that a command that cannot run is refused with its name rather than failing each time it runs.
///
/// `access(2)` answers for the caller (root), not for the app's user, so the mode bits are read here as the kernel
/// reads them for exec: owner bits when the user owns the file, else group bits when one of its groups does, else
/// the others' bits; root needs one execute bit. A file with an ACL (or on a file system whose rules differ) may let
/// in whom the bits keep out: such a file is never refused (the run tells).
public enum ProgramCheck {
  /// Whom a program would run as.
  public struct User: Sendable {
    public var uid: UInt32
    public var gid: UInt32
    public var groups: [UInt32]
    /// Its login name, for messages.
    public var name: String

    public init(uid: UInt32, gid: UInt32, groups: [UInt32], name: String) {
      self.uid = uid
      self.gid = gid
      self.groups = groups
      self.name = name
    }
  }

  /// What keeps `program` from running, in words that start with its name
  /// (`redis-cli: not found in /usr/local/bin:/usr/bin:/bin`, `./save.sh: not executable by user app (mode 0644)`),
  /// or nil when it can run (or cannot be judged).
  ///
  /// - Parameters:
  ///   - program: a name looked up on `searchPath`, or a path (relative to `workingDirectory`) when it holds a `/`.
  ///   - workingDirectory: where the program starts; nil when not known (a relative path is then not judged).
  ///   - user: whom it runs as; nil: only whether anyone may execute it (one execute bit).
  public static func problem(
    program: String, searchPath: String, workingDirectory: String?, user: User?
  ) -> String? {
    guard program.contains("/") else {
      var refused: String?
      for directory in searchPath.split(separator: ":") where !directory.isEmpty {
        let candidate = directory.hasSuffix("/") ? "\(directory)\(program)" : "\(directory)/\(program)"
        guard let info = status(of: candidate), (info.st_mode & S_IFMT) == S_IFREG else { continue }
        // The shell goes on past a file it may not execute: so does the search, remembering why it was passed.
        guard let why = executionRefusal(candidate, info, user) else { return nil }
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
    guard let info = status(of: path) else {
      return program.hasPrefix("/") ? "\(program): no such file" : "\(program): no such file in \(workingDirectory!)"
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else { return "\(program): not a regular file" }
    return executionRefusal(path, info, user).map { "\(program): \($0)" }
  }

  private static func status(of path: String) -> stat? {
    var info = stat()
    return stat(path, &info) == 0 ? info : nil
  }

  /// Why `user` may not execute the regular file at `path`, or nil when it may.
  private static func executionRefusal(_ path: String, _ info: stat, _ user: User?) -> String? {
    let mode = info.st_mode & 0o7777
    let bits: mode_t
    if let user, user.uid != 0 {
      if info.st_uid == user.uid {
        bits = 0o100
      } else if info.st_gid == user.gid || user.groups.contains(info.st_gid) {
        bits = 0o010
      } else {
        bits = 0o001
      }
    } else {
      bits = 0o111
    }
    guard mode & bits == 0 else { return nil }
    // An access ACL may grant what the bits do not: not judged.
    var none: UInt8 = 0
    if getxattr(path, "system.posix_acl_access", &none, 0) >= 0 { return nil }
    let octal = String(mode, radix: 8)
    let shown = String(repeating: "0", count: max(0, 4 - octal.count)) + octal
    return user.map { "not executable by user \($0.name) (mode \(shown))" } ?? "not executable (mode \(shown))"
  }
}
