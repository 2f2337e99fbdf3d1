import Foundation
import Glibc
import JetsamCore
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// Debian's server programs (`/usr/lib/postgresql/VERSION/bin`), the newest version there; not the `/usr/bin`
/// wrappers, which pick a version by the clusters configured on the machine. Outside the suite: its trait reads it.
private let postgresBinaries: String? = {
  let root = "/usr/lib/postgresql"
  let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
  return versions.reversed().map { "\(root)/\($0)/bin" }.first {
    FileManager.default.isExecutableFile(atPath: $0 + "/postgres")
  }
}()

/// A real database that knows nothing of jetsam (Debian's PostgreSQL), checked through commands alone, as redis is in
/// ``CommandProtocolTests``. Unlike redis without persistence, PostgreSQL is durable: a committed row is in its
/// write-ahead log before the commit returns, so a SIGKILL while suspended loses nothing, and the relaunch replays
/// the log (crash recovery) and holds what it held, without any save hook: `match`.
@Suite(
  "PostgreSQL as an app", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .enabled(if: postgresBinaries != nil, "PostgreSQL is not installed (scripts/install-deps.sh test)"),
  .timeLimit(.minutes(3)), .offThePool)
struct PostgresRestorationTests {
  static var binaries: String? { postgresBinaries }
  /// PostgreSQL refuses to run as root: the server, its hooks and initdb run as Debian's `postgres` user.
  static let user = "postgres"

  /// What the table holds, as one md5: the digest command, and what the test reads itself.
  static let digestQuery = "select md5(coalesce(string_agg(id || ':' || v, ',' order by id), '')) from rows"

  /// `psql` on the server at `port` as `postgres`, unaligned and quiet, stopping at the first error.
  static func psql(_ port: UInt16, _ sql: String) -> [String] {
    [
      binaries! + "/psql", "-X", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d",
      "postgres", "-Atqc", sql,
    ]
  }

  /// Runs `psql` from the test and returns its output, trimmed.
  static func query(_ port: UInt16, _ sql: String) throws -> String {
    let command = psql(port, sql)
    let result = try runCommand(command[0], Array(command.dropFirst()), timeout: .seconds(20))
    #expect(result.status == 0, "\(sql): \(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// One shell word.
  static func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }

  @Test("PostgreSQL killed while suspended recovers its committed rows from its log: match, with no save hook")
  func killedWhileSuspendedMatches() throws {
    let bin = try #require(Self.binaries)
    // Its own directory, which the postgres user can reach (the daemon's directory is root's alone).
    var template = Array("/tmp/jetsam-pg-XXXXXX".utf8CString)
    let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let account = try #require(getpwnam(Self.user)?.pointee)
    #expect(chmod(directory, 0o755) == 0 && chown(directory, account.pw_uid, account.pw_gid) == 0)
    let data = directory + "/data"
    // trust on 127.0.0.1: the hooks and the test connect over TCP without a password. --no-sync: a test's cluster.
    let initdb = try runCommand(
      "/usr/sbin/runuser",
      [
        "-u", Self.user, "--", bin + "/initdb", "-D", data, "--auth=trust", "-U", Self.user, "--no-sync", "-E", "UTF8",
        "--locale=C",
      ], timeout: .seconds(60))
    #expect(initdb.status == 0, "\(initdb.stderr)")

    // Every app of this jetsamd, and its hooks, run as postgres.
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null }, appUser: \"\(Self.user)\" }")
    defer { daemon.stop() }
    let port = try SocketDefunctTests.freePort()
    let server = [
      bin + "/postgres", "-D", data, "-h", "127.0.0.1", "-p", "\(port)", "-k", directory, "-c", "fsync=on",
    ]
    let launched = try daemon.ctl(
      [
        "launch", "postgres", "--ready", "\(bin)/pg_isready -q -h 127.0.0.1 -p \(port)",
        "--digest", Self.psql(port, Self.digestQuery).map(Self.quoted).joined(separator: " "), "--",
      ] + server)
    #expect(launched.status == 0, "\(launched.stderr)")
    try daemon.waitUntil("postgres to accept connections") {
      (try? runCommand(bin + "/pg_isready", ["-q", "-h", "127.0.0.1", "-p", "\(port)"]).status) == 0
    }
    // What a user does: rows committed (each statement of -c commits on its own).
    _ = try Self.query(port, "create table rows (id int primary key, v text)")
    _ = try Self.query(port, "insert into rows select g, md5(g::text) from generate_series(1, 200) g")
    _ = try Self.query(port, "update rows set v = 'changed' where id % 7 = 0")
    let digest = try Self.query(port, Self.digestQuery)
    #expect(digest.count == 32, "\(digest)")

    #expect(try daemon.ctl(["background", "postgres"]).status == 0)
    try daemon.waitUntil("the digest command to report the saved state") {
      try daemon.apps()["postgres"]?.status.savedDigest != nil
    }
    #expect(try daemon.apps()["postgres"]?.status.savedDigest == digest, "what the digest command printed")
    let (record, info) = try RestorationTests.jetsamKillWhileSuspendedAndRelaunch(daemon, "postgres")
    #expect(record.savedState.digest == digest)
    #expect(record.cause.signal == SIGKILL, "killed, not shut down: \(record)")
    #expect(info.status.restoration == .match, "\(info)")
    #expect(info.status.restoredDigest == digest)
    // It recovered from its log, as after a crash: the server says so in its log (its stderr, the app's log).
    let log = (try? String(contentsOfFile: daemon.directory + "/state/logs/postgres.log", encoding: .utf8)) ?? ""
    #expect(log.contains("automatic recovery in progress"), "\(log.suffix(2000))")
    #expect(try Self.query(port, "select count(*) from rows") == "200")
    // The kill also ends the server (no postgres is left).
    #expect(try daemon.ctl(["kill", "postgres"]).status == 0)
    let judged = try daemon.waitForRecords(2).last
    #expect(judged?.launch == 2 && judged?.savedState.restoration?.rawValue == "match")
  }
}
