import Glibc

/// Credentials for a spawned program: exactly these ids and supplementary groups, nothing inherited.
public struct SpawnUser: Hashable, Sendable {
  public var uid: UInt32
  public var gid: UInt32
  public var supplementaryGroups: [UInt32]
  /// The login name and home directory, for the clean environment an app of another user starts with.
  public var name = ""
  public var home = "/"

  public init(uid: UInt32, gid: UInt32, supplementaryGroups: [UInt32] = []) {
    self.uid = uid
    self.gid = gid
    self.supplementaryGroups = supplementaryGroups
  }

  /// The environment a program of this user starts with instead of jetsamd's (which it must not see):
  /// `PATH`, `HOME`, `USER` and `LOGNAME`.
  public var cleanEnvironment: [String: String] {
    ["PATH": defaultExecutableSearchPath, "HOME": home, "USER": name, "LOGNAME": name]
  }

  /// The login name of `uid` (`getpwuid_r`), nil when the password database has none.
  public static func name(of uid: uid_t) -> String? {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>? = nil
    var buffer = [CChar](repeating: 0, count: 16 * 1024)
    guard getpwuid_r(uid, &entry, &buffer, buffer.count, &found) == 0, found != nil, let name = entry.pw_name else {
      return nil
    }
    return String(cString: name)
  }

  /// Looks a user up in the password database (`getpwnam_r`), with its groups from `getgrouplist`.
  ///
  /// - Parameter name: the login name.
  /// - Returns: the user's uid, primary gid, and every group it belongs to.
  /// - Throws: ``SpawnError`` with stage ``SpawnError/Stage/lookUpUser`` (errno 0 when there is no such user).
  public static func lookup(name: String) throws(SpawnError) -> SpawnUser {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>? = nil
    var bufferSize = max(Int(sysconf(Int32(_SC_GETPW_R_SIZE_MAX))), 1024)
    while true {
      let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bufferSize)
      defer { buffer.deallocate() }
      let code = getpwnam_r(name, &entry, buffer, bufferSize, &found)
      if code == ERANGE && bufferSize < 1 << 20 {
        bufferSize *= 4
        continue
      }
      if code != 0 { throw SpawnError(stage: .lookUpUser, errno: code, detail: name) }
      guard found != nil else { throw SpawnError(stage: .lookUpUser, errno: 0, detail: name) }
      // The strings in `entry` point into `buffer`: copied before it goes.
      var user = SpawnUser(uid: entry.pw_uid, gid: entry.pw_gid, supplementaryGroups: groupList(name, entry.pw_gid))
      user.name = name
      user.home = entry.pw_dir.map { String(cString: $0) } ?? "/"
      return user
    }
  }

  /// Every group of user `name` (`getgrouplist`), with `gid` among them: the supplementary groups the group
  /// database gives it, grown to fit however many there are.
  public static func groupList(_ name: String, _ gid: gid_t) -> [UInt32] {
    var count: Int32 = 32
    while true {
      var groups = [gid_t](repeating: 0, count: Int(count))
      var capacity = count
      if getgrouplist(name, gid, &groups, &capacity) >= 0 {
        return Array(groups.prefix(Int(capacity)))
      }
      // -1: the list did not fit; `capacity` now holds the size it needs.
      count = max(capacity, count * 2)
    }
  }
}
