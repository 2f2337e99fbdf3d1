import Glibc
import JetsamPlatform

/// The user and group databases (`getpwnam_r`, `getpwuid_r`, `getgrouplist`), asked off the loop: under sssd or
/// LDAP one lookup can take seconds, and the loop never waits. Every answer comes back on the loop's thread.
///
/// The supervisor asks it whom a launch runs as; the daemon hands it the real ``ThreadUserDirectory``, unit tests
/// a fake that answers when they say.
protocol UserDirectory: AnyObject {
  /// Looks up user `name` for a launch as that user: its ids, groups and home.
  ///
  /// - Parameter then: runs on the loop with the user, or ``SpawnError`` with stage
  ///   ``SpawnError/Stage/lookUpUser`` (errno 0 when there is no such user).
  func user(named name: String, then: @escaping (Result<SpawnUser, SpawnError>) -> Void)

  /// Looks up the user with id `uid`; `then` runs on the loop with nil when the password database has none.
  func user(id uid: uid_t, then: @escaping (SpawnUser?) -> Void)
}

/// Who a control client is, as the databases tell: its login name (nil when the password database has none) and
/// every group its user belongs to, counting the group it connected with.
struct PeerIdentity: Sendable, Equatable {
  var name: String?
  var groups: [gid_t]
}

/// The real directory: each lookup runs on a helper thread and reports back through the loop (``BackgroundWork``).
///
/// Lookups run side by side: a user whose entry takes seconds (an LDAP server that does not answer) holds only
/// those who wait for that user. Nothing is cached: groups change (usermod, LDAP) without telling jetsamd, and a
/// kept answer would let a removed member in; where the databases are local files a lookup is cheap, and where they
/// are not it is off the loop.
final class ThreadUserDirectory: UserDirectory {
  private struct PeerKey: Hashable {
    var uid: uid_t
    var gid: gid_t
  }

  private let work: BackgroundWork
  /// Peer lookups under way, with whoever waits for each: a client opening connection after connection costs one
  /// lookup (and at most one blocked thread) per user, not one per connection.
  private var peersInFlight: [PeerKey: [(PeerIdentity) -> Void]] = [:]

  init(loop: EventLoop) throws {
    work = try BackgroundWork(loop: loop, label: "jetsamd.users", qos: .userInitiated, concurrent: true)
  }

  func user(named name: String, then: @escaping (Result<SpawnUser, SpawnError>) -> Void) {
    work.run(
      { Result { () throws(SpawnError) -> SpawnUser in try SpawnUser.lookup(name: name) } },
      then: then)
  }

  func user(id uid: uid_t, then: @escaping (SpawnUser?) -> Void) {
    work.run({ SpawnUser.name(of: uid).flatMap { try? SpawnUser.lookup(name: $0) } }, then: then)
  }

  /// Looks up the control client with user `uid` that connected with group `gid`: its name (for a launch as that
  /// user) and its user's groups from `gid` on (for the check of the control group). `then` runs on the loop.
  func peer(uid: uid_t, gid: gid_t, then: @escaping (PeerIdentity) -> Void) {
    let key = PeerKey(uid: uid, gid: gid)
    if peersInFlight[key] != nil { return peersInFlight[key]!.append(then) }
    peersInFlight[key] = [then]
    work.run(
      {
        let name = SpawnUser.name(of: uid)
        return PeerIdentity(name: name, groups: name.map { SpawnUser.groupList($0, gid) } ?? [])
      },
      then: { [unowned self] identity in
        for waiter in self.peersInFlight.removeValue(forKey: key) ?? [] { waiter(identity) }
      })
  }
}
