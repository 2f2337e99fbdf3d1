import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// Locked files at suspension on real processes: a Python app inside `BEGIN EXCLUSIVE` on a SQLite database, and
/// another writer (the sqlite3 CLI) that the lock keeps out.
@Suite(
  "Locked files at suspension", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct LockedFileIntegrationTests {
  static let holder = Binaries.packageRoot + "/Tests/JetsamIntegrationTests/Fixtures/sqlite_holder.py"

  /// Starts the holder as app `db` in the background (never suspended on its own) and waits until it holds its
  /// lock; with `commitOnCue`, it commits once the test creates `<directory>/commit`. Returns its pid and the
  /// database's path.
  static func startHolder(_ daemon: DaemonHarness, options: [String] = [], commitOnCue: Bool = false) throws
    -> (pid: Int32, database: String)
  {
    let database = daemon.directory + "/shared.db"
    let arguments = [holder, database, daemon.directory] + (commitOnCue ? ["commit-on-cue"] : [])
    let pid = try daemon.launch("db", arguments, options: ["--background"] + options, executable: "/usr/bin/python3")
    try daemon.waitUntil("the holder to be inside BEGIN EXCLUSIVE") {
      FileManager.default.fileExists(atPath: daemon.directory + "/locked")
    }
    return (pid, database)
  }

  /// The other writer: the sqlite3 CLI inserting a row without waiting for the lock. Its exit status and stderr.
  static func otherWriter(_ database: String) throws -> CommandResult {
    try runCommand("/usr/bin/sqlite3", [database, "INSERT INTO t VALUES (2)"])
  }

  static let config = "{ suspend: { backgroundGrace: null } }"

  @Test("kill (iOS): an app suspended inside BEGIN EXCLUSIVE is recorded suspendedWithLockedFile, naming the file")
  func killed() throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    let (pid, database) = try Self.startHolder(daemon)
    let blocked = try Self.otherWriter(database)
    #expect(blocked.status != 0 && blocked.stderr.contains("database is locked"), "\(blocked.stderr)")
    try daemon.ctl(["suspend", "db"])
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.pid == pid)
    #expect(record.cause.reason == .suspendedWithLockedFile)
    #expect(record.cause.terminationReason == "RUNNINGBOARD 0xdead10cc")
    #expect(record.cause.endedBy == .jetsam)
    #expect(try daemon.jetsamKills(once: 1) == [.suspendedWithLockedFile: 1])
    #expect(record.lifecycle.state == .suspended)
    let lock = try #require(record.evidence.lockedFiles?.first)
    #expect(lock.path == database && lock.type == "posix" && lock.pid == pid)
    #expect(!isAlive(pid))
    // Its death released the lock: the other writer gets in.
    let after = try Self.otherWriter(database)
    #expect(after.status == 0, "\(after.stderr)")
  }

  @Test("defer: the app stays running in the background, the other writer succeeds once it commits, then it suspends")
  func deferred() throws {
    let daemon = try DaemonHarness(
      config: #"{ suspend: { backgroundGrace: null }, lockedFiles: { action: "defer", retry: "500ms" } }"#)
    defer { daemon.stop() }
    let (pid, database) = try Self.startHolder(daemon, commitOnCue: true)
    try daemon.ctl(["suspend", "db"])
    #expect(try daemon.apps()["db"]?.status.state == .background, "deferred, not suspended")
    #expect(processState(pid: pid) != "T")
    let blocked = try Self.otherWriter(database)
    #expect(blocked.status != 0 && blocked.stderr.contains("database is locked"), "\(blocked.stderr)")
    // Still deferred while it holds the lock (retried every 500 ms), until it commits.
    usleep(UInt32(1_200_000 * TestTiming.slowdown))
    #expect(try daemon.apps()["db"]?.status.state == .background, "still deferred")
    #expect(FileManager.default.createFile(atPath: daemon.directory + "/commit", contents: nil))
    try daemon.waitUntil("the holder to commit") {
      FileManager.default.fileExists(atPath: daemon.directory + "/committed")
    }
    let after = try Self.otherWriter(database)
    #expect(after.status == 0, "\(after.stderr)")
    // Its next retry finds no lock: suspended for real.
    try daemon.waitUntil("the deferred suspension to go through") {
      try daemon.apps()["db"]?.status.state == .suspended && processState(pid: pid) == "T"
    }
    #expect(try daemon.recordsOnDisk().isEmpty)
  }

  @Test("a lock outside the configured paths does not count: the app is suspended with it")
  func outsidePaths() throws {
    let daemon = try DaemonHarness(
      config: #"{ suspend: { backgroundGrace: null }, lockedFiles: { paths: ["/nonexistent/shared"] } }"#)
    defer { daemon.stop() }
    let (pid, _) = try Self.startHolder(daemon)
    try daemon.ctl(["suspend", "db"])
    try daemon.waitUntil("the suspension") { processState(pid: pid) == "T" }
    #expect(try daemon.apps()["db"]?.status.state == .suspended)
    #expect(try daemon.recordsOnDisk().isEmpty)
  }
}
