import Foundation
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import Testing

/// The sqlite3 CLI itself as the app, a program that knows nothing of jetsam: its SQL comes from a FIFO the test
/// writes to, so that it can be left inside a write transaction, or out of one, when it is suspended.
extension LockedFileIntegrationTests {
  /// A sqlite3 CLI running as an app, and the FIFO the test writes its SQL to.
  struct SQLiteCLI {
    let pid: Int32
    let input: Int32
    let database: String

    /// Starts `sqlite3 DATABASE` as app `name` (in the foreground), reading SQL from a FIFO. The test holds the FIFO
    /// open read-write: neither open waits for the other, and the CLI never reads the end of its input.
    init(_ daemon: DaemonHarness, _ name: String) throws {
      database = daemon.directory + "/\(name).db"
      let fifo = daemon.directory + "/\(name).sql"
      guard mkfifo(fifo, 0o600) == 0 else { throw TestKitError("mkfifo \(fifo): errno \(errno)") }
      input = open(fifo, O_RDWR | O_CLOEXEC)
      guard input >= 0 else { throw TestKitError("open \(fifo): errno \(errno)") }
      // The shell execs sqlite3, so the app's process is the CLI's (the redirection is the shell's to make).
      pid = try daemon.launch(
        name, ["-c", #"exec /usr/bin/sqlite3 "$0" < "$1""#, database, fifo], executable: "/bin/sh")
      try daemon.waitUntil("sqlite3 to run") {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) == "sqlite3\n"
      }
    }

    /// Sends SQL to the CLI (one line; it runs each statement once its line is complete).
    func send(_ sql: String) throws {
      let line = Array((sql + "\n").utf8)
      guard write(input, line, line.count) == line.count else { throw TestKitError("write to sqlite3: \(errno)") }
    }

    /// The accesses (`READ`, `WRITE`) of the POSIX locks `/proc/locks` says the CLI holds.
    var locks: [String] {
      let text = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
      return text.split(separator: "\n").compactMap { line in
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count >= 5, words[1] == "POSIX", words[4] == "\(pid)" else { return nil }
        return String(words[3])
      }
    }

    /// Runs a query on the database with a sqlite3 of the test's own; its output, trimmed.
    func query(_ sql: String) throws -> String {
      let result = try runCommand("/usr/bin/sqlite3", [database, sql])
      guard result.status == 0 else { throw TestKitError("sqlite3 \(sql): \(result.stderr)") }
      return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func close() { _ = Glibc.close(input) }
  }

  @Test(
    "the sqlite3 CLI suspends normally after COMMIT, and is killed suspendedWithLockedFile inside BEGIN IMMEDIATE")
  func sqlite3CLI() throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    let cli = try SQLiteCLI(daemon, "cli")
    defer { cli.close() }

    // Out of any transaction (rollback journal: no lock held between transactions), it suspends as any app does.
    try cli.send("CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1); COMMIT;")
    try daemon.waitUntil("the committed row") { (try? cli.query("SELECT count(*) FROM t")) == "1" }
    #expect(cli.locks.isEmpty, "\(cli.locks)")
    #expect(try daemon.ctl(["background", "cli"]).status == 0)
    #expect(try daemon.ctl(["suspend", "cli"]).status == 0)
    try daemon.waitUntil("the suspension") {
      try daemon.apps()["cli"]?.status.state == .suspended && processState(pid: cli.pid) == "T"
    }
    #expect(try daemon.recordsOnDisk().isEmpty)

    // Back in the foreground, it takes the database's write lock (RESERVED: an fcntl write lock on the db file).
    #expect(try daemon.ctl(["activate", "cli"]).status == 0)
    try daemon.waitUntil("the return to the foreground") {
      try daemon.apps()["cli"]?.status.state == .foregroundActive && processState(pid: cli.pid) != "T"
    }
    try cli.send("BEGIN IMMEDIATE; INSERT INTO t VALUES (2);")
    try daemon.waitUntil("sqlite3 to hold the write lock") { cli.locks.contains("WRITE") }
    let blocked = try runCommand("/usr/bin/sqlite3", [cli.database, "INSERT INTO t VALUES (3)"])
    #expect(blocked.status != 0 && blocked.stderr.contains("database is locked"), "\(blocked.stderr)")

    // The default rule (kill, as iOS): suspended with the lock, it dies for it.
    #expect(try daemon.ctl(["background", "cli"]).status == 0)
    try daemon.ctl(["suspend", "cli"])
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.pid == cli.pid && record.cause.reason == .suspendedWithLockedFile, "\(record)")
    #expect(record.cause.terminationReason == "RUNNINGBOARD 0xdead10cc")
    #expect(record.cause.endedBy == .jetsam && record.lifecycle.state == .suspended)
    let locks = record.evidence.lockedFiles ?? []
    #expect(
      locks.contains { $0.path == cli.database && $0.type == "posix" && $0.access == "write" && $0.pid == cli.pid },
      "\(locks)")
    #expect(!isAlive(cli.pid))

    // The database is whole: the hot journal rolls the open transaction back, the committed row stays.
    #expect(try cli.query("PRAGMA integrity_check") == "ok")
    #expect(try cli.query("SELECT group_concat(x) FROM t") == "1")
  }
}
