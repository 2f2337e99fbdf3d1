import Foundation
import Glibc
import JetsamTestKit
import JetsamTestTraits
import Testing

/// Scenarios on real programs that know nothing of jetsam (labs/redis.json5, sqlite.json5, http-server.json5): their
/// apps' `ready`, `digest`, `on` and `exercise`, the `{port:NAME}` and `{tmpDir}` the lab fills in, and a broken
/// variant of each that the scenario catches. Not serialized: each run has its own jetsamd, ports and directory.
@Suite(
  "Labs on programs that do not speak the protocol",
  .enabled(if: isRoot, "needs root: a lab's jetsamd creates cgroups"),
  .enabled(
    if: ["redis-server", "redis-cli", "sqlite3"].allSatisfy {
      FileManager.default.fileExists(atPath: "/usr/bin/" + $0)
    },
    "needs redis-server, redis-cli and sqlite3 (scripts/install-deps.sh test)"),
  .timeLimit(.minutes(3)), .offThePool)
struct ProgramLabTests {
  /// A lab file with `edit` applied, written to a scratch directory (removed by the caller), for a broken variant.
  static func variant(_ lab: String, _ edit: (String) -> String) throws -> (path: String, directory: String) {
    let directory = try makeScratchDirectory()
    let text = try String(contentsOfFile: LabTests.labs + lab, encoding: .utf8)
    let edited = edit(text)
    #expect(edited != text, "the variant changes \(lab)")
    try edited.write(toFile: directory + "/" + lab, atomically: true, encoding: .utf8)
    return (directory + "/" + lab, directory)
  }

  /// The steps of a run's summary by location.
  static func steps(_ reports: String) throws -> [String: [String: Any]] {
    var steps: [String: [String: Any]] = [:]
    for step in try LabTests.summary(reports)["steps"] as? [[String: Any]] ?? [] {
      if let location = step["location"] as? String { steps[location] = step }
    }
    return steps
  }

  @Test("redis.json5 passes: without persistence its restoration is mismatch, with a SAVE hook match")
  func redisLab() throws {
    let (result, reports) = try LabTests.run(LabTests.labs + "redis.json5")
    defer { try? FileManager.default.removeItem(atPath: reports) }
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let summary = try LabTests.summary(reports)
    let verdicts = try #require(summary["verdicts"] as? [[String: Any]])
    #expect(
      Set(verdicts.map { "\($0["app"]!) \($0["launch"]!) \($0["verdict"]!)" }) == [
        "plain 2 mismatch", "saved 2 match",
      ],
      "\(verdicts)")
    // Each exercise ran once, on a server that was up.
    let log = try String(contentsOfFile: reports + "/exercise.log", encoding: .utf8)
    #expect(log.components(separatedBy: "SET greeting hello\nOK").count == 3, "\(log)")
    // The ports were the lab's pick, not the servers' default.
    #expect(!log.contains("-p 6379 "), "\(log)")
  }

  @Test("redis.json5 without its SAVE hook fails: restoration of saved is mismatch, not match")
  func redisLabWithoutSaveFails() throws {
    let (path, directory) = try Self.variant("redis.json5") {
      $0.replacingOccurrences(of: #"on: { didEnterBackground: "redis-cli -p {port:saved} SAVE" },"#, with: "")
    }
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (result, reports) = try LabTests.run(path)
    defer { try? FileManager.default.removeItem(atPath: reports) }
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    let cases = try LabTests.junitCases(reports + "/junit.xml")
    let failed = cases.filter { $0.value != nil }
    #expect(Array(failed.keys) == ["steps[19] expect restoration of saved is match"], "\(cases)")
    #expect(failed.values.first??.contains("mismatch") == true, "\(failed)")
  }

  @Test("sqlite.json5 passes: the CLI inside BEGIN IMMEDIATE is killed suspendedWithLockedFile, naming notes.db")
  func sqliteLab() throws {
    let (result, reports) = try LabTests.run(LabTests.labs + "sqlite.json5")
    defer { try? FileManager.default.removeItem(atPath: reports) }
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let exits = try #require(try LabTests.summary(reports)["exits"] as? [[String: Any]])
    #expect(exits.count == 1, "\(exits)")
    let record = try #require(exits.first)
    #expect(record["reason"] as? String == "suspendedWithLockedFile" && record["state"] as? String == "suspended")
    let locks = record["lockedFiles"] as? [[String: Any]] ?? []
    // SQLite's SHARED lock (read) and its RESERVED lock (write), both on the database file.
    let database = try #require(
      locks.first { ($0["path"] as? String)?.hasSuffix("/notes.db") == true && $0["access"] as? String == "write" },
      "\(locks)")
    // {tmpDir}, with the database in it, is gone with the run.
    let path = try #require(database["path"] as? String)
    #expect(!FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent), "\(path)")
    let evidence = try Self.steps(reports)["steps[4]"]?["evidence"] as? String ?? ""
    #expect(
      evidence.hasPrefix("notes launch 1: suspendedWithLockedFile in suspended holding ") && evidence.contains(path))
  }

  @Test("http-server.json5 passes: the listener is gone after a suspension; kept sockets make it fail")
  func httpServerLab() throws {
    let (result, reports) = try LabTests.run(LabTests.labs + "http-server.json5")
    defer { try? FileManager.default.removeItem(atPath: reports) }
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(try Self.steps(reports)["steps[7]"]?["title"] as? String == "exercise web (must fail)")

    let (path, directory) = try Self.variant("http-server.json5") {
      $0.replacingOccurrences(
        of: "config: { suspend: { backgroundGrace: null } },",
        with: #"config: { suspend: { backgroundGrace: null }, sockets: { atSuspension: "keep" } },"#)
    }
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (kept, keptReports) = try LabTests.run(path)
    defer { try? FileManager.default.removeItem(atPath: keptReports) }
    #expect(kept.status == 1, "\(kept.stdout)\(kept.stderr)")
    let steps = try Self.steps(keptReports)
    #expect(steps.filter { $0.value["outcome"] as? String != "passed" }.keys.sorted() == ["steps[7]"], "\(steps)")
    #expect((steps["steps[7]"]?["message"] as? String)?.contains("succeeded, and was to fail") == true)
  }

  @Test("an app's commands in a scenario: a bad value is refused naming the file, the key and what is wrong")
  func commandErrors() throws {
    let directory = try makeScratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let cases: [(String, String)] = [
      (
        #"{ apps: { a: { command: ["x"], ready: "  " } }, steps: [] }"#, "bad.json5: apps.a.ready: the command is empty"
      ),
      (
        #"{ apps: { a: { command: ["x"], ready: ["redis-cli", "PING"] } }, steps: [] }"#,
        "bad.json5: apps.a.ready: expected a command line (a string, run by /bin/sh -c)"
      ),
      (
        #"{ apps: { a: { command: ["x"], digestValidFor: "5s" } }, steps: [] }"#,
        "bad.json5: apps.a.digestValidFor: needs digest"
      ),
      (
        #"{ apps: { a: { command: ["x"], digest: "d" } }, steps: [] }"#,
        "bad.json5: apps.a.digest: needs ready (the restored digest waits for it)"
      ),
      (
        #"{ apps: { a: { command: ["x"], ready: "r", digest: "d", digestValidFor: "soon" } }, steps: [] }"#,
        "bad.json5: apps.a.digestValidFor: expected a duration such as 500ms, 10s or 2m"
      ),
      (
        #"{ apps: { a: { command: ["x"], on: { didEnterBackround: "save" } } }, steps: [] }"#,
        "bad.json5: apps.a.on.didEnterBackround: not a lifecycle event (didFinishLaunching"
      ),
      (
        #"{ apps: { a: { command: ["x"], on: "save" } }, steps: [] }"#,
        "bad.json5: apps.a.on: expected an object of lifecycle event → command"
      ),
      (
        #"{ apps: { a: { command: ["x"] } }, steps: [ { exercise: "a" } ] }"#,
        "bad.json5: steps[0].exercise: a has no exercise (give it one: apps.a.exercise, a command line)"
      ),
      (
        #"{ apps: { a: { command: ["x"], exercise: "e" } }, steps: [ { launch: "a", fails: true } ] }"#,
        "bad.json5: steps[0]: fails: belongs to an exercise step"
      ),
      (
        #"{ apps: { a: { command: ["x"] } }, steps: [ { expect: { exit: { app: "a", lockedFile: "a.db" } } } ] }"#,
        "bad.json5: steps[0].expect.exit.lockedFile: expected an absolute path"
      ),
    ]
    for (text, expected) in cases {
      try text.write(toFile: directory + "/bad.json5", atomically: true, encoding: .utf8)
      let (result, reports) = try LabTests.run(directory + "/bad.json5")
      #expect(result.status == 2, "\(text)")
      #expect(result.stderr.contains(expected), "\(text) → \(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: reports), "no run started for \(text)")
    }
  }
}
