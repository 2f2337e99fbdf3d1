import Foundation
import FoundationXML
import Glibc
import JetsamDaemonProcess
import JetsamTestKit
import Testing

/// `jetsam-lab check` on a real key-value server that knows nothing of jetsam (Debian's redis-server), through
/// commands alone: `--ready`, `--digest`, `--exercise`, and a save hook or none.
extension LabCheckTests {
  /// What one battery on redis left: its exit status and output, its summary's steps by location and verdicts, the
  /// `through` property of each JUnit test case that has one, and the exercise's log.
  struct RedisCheck {
    var result: CommandResult
    var reports: Reports
    /// Whether the server still answered on its port after the battery.
    var leftRunning: Bool

    struct Reports {
      var steps: [String: [String: Any]] = [:]
      var verdicts: [[String: Any]] = []
      var junitThrough: [String: String] = [:]
      var exerciseLog = ""
    }

    func outcome(_ location: String) -> String? { reports.steps[location]?["outcome"] as? String }
    func through(_ location: String) -> [String]? { reports.steps[location]?["through"] as? [String] }
  }

  /// Runs the battery on `redis-server` on a free port, its data in a temporary directory (removed after), with
  /// `--ready`, `--digest`, `--exercise` (a SET) and, when `save`, `--on didEnterBackground=… SAVE`.
  static func checkRedis(port: UInt16, save: Bool) throws -> RedisCheck {
    let cli = "\(CommandProtocolTests.redisCLI) -p \(port)"
    var template = Array((NSTemporaryDirectory() + "jetsam-redis-XXXXXX").utf8CString)
    let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = [
      CommandProtocolTests.redisServer, "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
      "--dir", directory, "--dbfilename", "dump.rdb", "--enable-debug-command", "local",
    ]
    let flags =
      ["--ready", "\(cli) PING", "--digest", "\(cli) DEBUG DIGEST", "--exercise", "\(cli) SET k v"]
      + (save ? ["--on", "didEnterBackground=\(cli) SAVE"] : [])
    var read = RedisCheck.Reports()
    let result = try Self.check("redis", server, flags: flags) { reports in
      let summary = try LabTests.summary(reports)
      for step in summary["steps"] as? [[String: Any]] ?? [] {
        if let location = step["location"] as? String { read.steps[location] = step }
      }
      read.verdicts = summary["verdicts"] as? [[String: Any]] ?? []
      let junit = try XMLDocument(contentsOf: URL(fileURLWithPath: reports + "/junit.xml"))
      for node in try junit.nodes(forXPath: "//testcase") {
        guard let element = node as? XMLElement, let name = element.attribute(forName: "name")?.stringValue,
          let value = try element.nodes(forXPath: "properties/property[@name='through']/@value").first?.stringValue
        else { continue }
        // The case's name is the check's location, then its title.
        read.junitThrough[String(name.prefix { $0 != " " })] = value
      }
      read.exerciseLog = (try? String(contentsOfFile: reports + "/exercise.log", encoding: .utf8)) ?? ""
    }
    // The battery's terminate ended it and its jetsamd is gone: nothing answers on its port any more.
    let ping = try runCommand(CommandProtocolTests.redisCLI, ["-p", "\(port)", "PING"], timeout: .seconds(10))
    return RedisCheck(result: result, reports: read, leftRunning: ping.stdout.contains("PONG"))
  }

  @Test(
    "redis-server through --ready, --digest and --exercise: without a save hook restoration fails (mismatch), with SAVE at didEnterBackground it passes (match)"
  )
  func redisThroughCommands() throws {
    let first = try SocketDefunctTests.freePort()
    var second = try SocketDefunctTests.freePort()
    while second == first { second = try SocketDefunctTests.freePort() }
    // The two batteries at once (each on its own jetsamd): about 75 s together rather than 150.
    let results = LockedChecks()
    let group = DispatchGroup()
    for (port, save) in [(first, false), (second, true)] {
      group.enter()
      DispatchQueue.global().async {
        results.set(save, Result { try Self.checkRedis(port: port, save: save) })
        group.leave()
      }
    }
    group.wait()
    let unsaved = try results.get(false).get()
    let saved = try results.get(true).get()

    #expect(unsaved.result.status == 1, "\(unsaved.result.stdout)\(unsaved.result.stderr)")
    #expect(unsaved.outcome("restoration") == "failed", "\(unsaved.result.stdout)")
    #expect((unsaved.reports.steps["restoration"]?["message"] as? String)?.contains("mismatch") == true)
    #expect(unsaved.through("restoration") == ["--digest"], "\(unsaved.result.stdout)")
    #expect(unsaved.reports.junitThrough["restoration"] == "--digest", "\(unsaved.reports.junitThrough)")
    #expect(
      unsaved.reports.verdicts.contains {
        $0["kind"] as? String == "restoration" && $0["verdict"] as? String == "mismatch"
      },
      "\(unsaved.reports.verdicts)")

    #expect(saved.result.status == 0, "\(saved.result.stdout)\(saved.result.stderr)")
    #expect(saved.outcome("restoration") == "passed", "\(saved.result.stdout)")
    #expect(saved.through("restoration") == ["--on didEnterBackground", "--digest"], "\(saved.result.stdout)")
    #expect(
      saved.reports.junitThrough["restoration"] == "--on didEnterBackground, --digest", "\(saved.reports.junitThrough)")
    #expect(
      saved.reports.verdicts.contains { $0["kind"] as? String == "restoration" && $0["verdict"] as? String == "match" },
      "\(saved.reports.verdicts)")
    #expect(saved.outcome("crash") == "passed", "\(saved.result.stdout)")

    for check in [unsaved, saved] {
      let card = Self.card(check.result.stdout)
      #expect(card.count == 15, "\(check.result.stdout)")
      // The launch is judged through --ready, and the line says so.
      #expect(check.outcome("watchdog didFinishLaunching") == "passed", "\(check.result.stdout)")
      #expect(check.through("watchdog didFinishLaunching") == ["--ready"], "\(check.result.stdout)")
      #expect(
        card.first { $0.check == "watchdog didFinishLaunching" }?.detail.hasSuffix("(through --ready)") == true,
        "\(check.result.stdout)")
      #expect(check.outcome("watchdog didEnterBackground") == "passed", "\(check.result.stdout)")
      // Nothing answers these for a program that speaks no protocol: no PASS that could not have been a FAIL.
      for location in [
        "watchdog didBecomeActive", "watchdog willResignActive", "watchdog willEnterForeground",
        "watchdog didBecomeActive (return)", "backgroundTask", "staleness", "sockets",
      ] {
        #expect(check.outcome(location) == "skipped", "\(location): \(check.result.stdout)")
        #expect(check.through(location) == nil, "\(location)")
      }
      // The exercise ran after each launch (the first, the relaunch after the kill, the relaunch after the crash),
      // so that the restoration was judged on data.
      #expect(
        check.reports.exerciseLog.components(separatedBy: "\nOK\n").count - 1 == 3, "\(check.reports.exerciseLog)")
      #expect(!check.leftRunning, "a redis-server still answers after the battery")
    }
  }

  @Test(
    "sqlite3 CLI (LABS.md's recipe) through --digest and --exercise: its committed rows survive the kill while suspended, restoration match"
  )
  func sqliteThroughCommands() throws {
    var template = Array((NSTemporaryDirectory() + "jetsam-sqlite-XXXXXX").utf8CString)
    let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let database = directory + "/notes.db"
    let fifo = directory + "/notes.sql"
    #expect(mkfifo(fifo, 0o600) == 0)
    // SQL written into the FIFO reaches the CLI; held read-write, the FIFO never reads an end. Each exercise commits
    // a row (autocommit): rollback-journal sqlite holds no lock between statements, so it suspends as any app.
    let program = "exec /usr/bin/sqlite3 \(database) 0<>\(fifo)"
    let flags = [
      "--ready", "/usr/bin/sqlite3 \(database) 'pragma quick_check'",
      "--digest", "/usr/bin/sqlite3 \(database) .sha3sum",
      "--exercise", "echo 'create table if not exists notes(v); insert into notes values (1);' > \(fifo)",
    ]
    let result = try Self.check("db", ["/bin/sh", "-c", program], flags: flags)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let card = Self.card(result.stdout)
    #expect(card.count == 15, "\(result.stdout)")
    #expect(!card.contains { $0.outcome == "FAIL" }, "\(result.stdout)")
    let restoration = try #require(card.first { $0.check == "restoration" }, "\(result.stdout)")
    #expect(restoration.outcome == "PASS" && restoration.detail.contains("match"), "\(result.stdout)")
    #expect(restoration.detail.hasSuffix("(through --digest)"), "\(result.stdout)")
    #expect(card.first { $0.check == "crash" }?.outcome == "PASS", "\(result.stdout)")
    // The rows the exercises committed, one per launch that became active, are all on disk.
    let rows = try runCommand("/usr/bin/sqlite3", [database, "select count(*) from notes"])
    #expect(Int(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 >= 3, "\(rows.stdout)\(rows.stderr)")
  }
}

/// The two batteries' results, filled in from their threads.
private final class LockedChecks: @unchecked Sendable {
  private let lock = NSLock()
  private var results: [Bool: Result<LabCheckTests.RedisCheck, any Error>] = [:]

  func set(_ save: Bool, _ result: Result<LabCheckTests.RedisCheck, any Error>) {
    lock.withLock { results[save] = result }
  }

  func get(_ save: Bool) -> Result<LabCheckTests.RedisCheck, any Error> {
    lock.withLock { results[save] ?? .failure(TestKitError("no result")) }
  }
}
