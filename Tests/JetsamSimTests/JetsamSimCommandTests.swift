import Foundation
import JetsamTestKit
import Testing

/// The built `jetsam-sim`: the same seed gives the same JSON, and the command line's exits.
@Suite struct JetsamSimCommandTests {
  static var binary: String { Binaries.current.directory + "/jetsam-sim" }

  @Test func twoRunsWithTheSameSeedPrintTheSameJSON() throws {
    let arguments = ["--apps", "300", "--duration", "4h", "--seed", "42", "--json"]
    let first = try runCommand(Self.binary, arguments, timeout: .seconds(120))
    let second = try runCommand(Self.binary, arguments, timeout: .seconds(120))
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stdout == second.stdout)
    let object = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any]
    #expect(object?["apps"] as? Int == 300)
    #expect((object?["kills"] as? [String: Any])?["total"] != nil)
  }

  @Test func helpExitsZero() throws {
    let result = try runCommand(Self.binary, ["--help"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("usage: jetsam-sim"))
    #expect(result.stdout.contains("--html FILE") && result.stdout.contains("73 the --html file"))
  }

  @Test(arguments: [
    ["--apps", "0"], ["--duration", "1y"], ["--bogus"], ["--seed"], ["--model", "no-such-model"], ["--html"],
  ])
  func misuseExits64(arguments: [String]) throws {
    let result = try runCommand(Self.binary, arguments)
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("jetsam-sim: "))
  }

  @Test func aBadModelFileExits65NamingThePlace() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("jetsam-sim-\(getpid()).json5").path
    try #"{ ramMiB: 4096, kinds: [{ name: "a", memoryMedianMiB: -1 }] }"#.write(
      toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try runCommand(Self.binary, ["--model", path])
    #expect(result.status == 65)
    #expect(result.stderr.contains("\(path): kinds[0].memoryMedianMiB: -1.0 is out of range"))
  }

  @Test func anUnreadableModelFileExits66() throws {
    let result = try runCommand(Self.binary, ["--model", "/nonexistent/model.json5"])
    #expect(result.status == 66)
  }

  /// The page's file is created before the run: a bad path costs no simulated day.
  @Test func aPageThatCannotBeWrittenExits73BeforeTheRun() throws {
    let path = "/nonexistent-\(getpid())/report.html"
    // A run that long would outlast the timeout: the failure must come before it.
    let result = try runCommand(Self.binary, ["--apps", "100000", "--duration", "365d", "--html", path])
    #expect(result.status == 73)
    #expect(result.stderr == "jetsam-sim: --html: cannot create \(path): No such file or directory\n")
    #expect(result.stdout.isEmpty)
  }
}
