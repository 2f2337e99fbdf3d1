import Foundation
import JetsamSim
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
    #expect((object?["policyEvents"] as? Int ?? 0) > 0)
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

  /// `MemAvailable` from /proc/meminfo, in bytes (0 when it cannot be read).
  static var memAvailable: Int64 {
    let text = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("MemAvailable:") } ?? ""
    return (Int64(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
  }

  /// What the documented maximum needs, by the estimate `jetsam-sim` checks (the default model and duration).
  static var maximumNeed: SimMemoryEstimate {
    let model = try? BuiltInModels.model(named: BuiltInModels.defaultName)
    return SimMemoryEstimate(model: model!, apps: 10_000_000, duration: .seconds(86_400))
  }

  /// `--apps 10000000` on a machine without the memory for it is refused at once with the figure it needs, not
  /// started to be ended by the OOM killer. Where it would fit the run takes minutes and tens of GB: not started here.
  @Test(
    .enabled(
      // Short by a margin (500 MB), so that what is free cannot change sides between this look and jetsam-sim's.
      if: memAvailable < maximumNeed.bytes / 50 * 49,
      "this machine may have the memory for 10,000,000 apps: such a run is not started by a test"))
  func theDocumentedMaximumIsRefusedWhereItWouldNotFit() throws {
    // Were it started, it would outlast the timeout (and this throw) long before it finished.
    let result = try runCommand(Self.binary, ["--apps", "10000000"], timeout: .seconds(20))
    #expect(result.status == 64)
    let need = SimMemoryEstimate.describe(Self.maximumNeed.bytes)
    #expect(result.stderr.hasPrefix("jetsam-sim: --apps 10000000 needs about \(need) of memory; "), "\(result.stderr)")
    #expect(result.stderr.contains(" is available ("))
    #expect(result.stdout.isEmpty)
  }

  /// Under a real memory limit: a population its cgroup cannot hold is refused at once, naming the limit (without
  /// the check, a million apps in 256 MiB would be ended by the OOM killer, a SIGKILL and not 64), and one the
  /// estimate says fits runs to its end (the estimate is not too low for it).
  @Test(.enabled(if: isRoot, "needs root to make a memory cgroup"))
  func aPopulationOverItsCgroupsLimitIsRefusedAndOneWithinItRuns() throws {
    let scratch = try ScratchCgroup(
      name: "jetsam-sim-ceiling-\(getpid())-\(UInt32.random(in: 0...UInt32.max))", placement: .hierarchyRoot,
      unified: CgroupHost.isPureV2, v1Controllers: ["memory"])
    defer { try? scratch.destroy() }
    // One directory: cgroup2's on a pure v2 host, else the v1 memory hierarchy's.
    let directory = try #require(scratch.directories.first)
    let limitFile = directory + (CgroupHost.isPureV2 ? "/memory.max" : "/memory.limit_in_bytes")
    try #require(FileManager.default.fileExists(atPath: limitFile), "no memory controller in \(directory)")
    let limit: Int64 = 256 << 20
    try String(limit).write(toFile: limitFile, atomically: false, encoding: .utf8)
    func runInside(apps: Int) throws -> CommandResult {
      // The shell joins the cgroup and becomes jetsam-sim, which so sits under the limit from its first instruction.
      try runCommand(
        "/bin/sh",
        [
          "-c", "echo $$ > \(directory)/cgroup.procs && exec \"$0\" \"$@\"", Self.binary, "--apps", String(apps),
          "--duration", "1h",
        ],
        timeout: .seconds(120))
    }
    let model = try #require(try BuiltInModels.model(named: BuiltInModels.defaultName))

    let tooMany = try runInside(apps: 1_000_000)
    #expect(tooMany.status == 64, "\(tooMany.stderr)")
    let need = SimMemoryEstimate(model: model, apps: 1_000_000, duration: .seconds(3600))
    #expect(
      tooMany.stderr.hasPrefix("jetsam-sim: --apps 1000000 needs about \(SimMemoryEstimate.describe(need.bytes))"),
      "\(tooMany.stderr)")
    #expect(tooMany.stderr.contains("the 268 MB memory limit of cgroup \(directory))"), "\(tooMany.stderr)")
    #expect(tooMany.stdout.isEmpty)

    // Room is left for what the cgroup holds when jetsam-sim looks (the shell's pages, its own start).
    let fits = 40_000
    try #require(SimMemoryEstimate(model: model, apps: fits, duration: .seconds(3600)).bytes < limit - (32 << 20))
    let run = try runInside(apps: fits)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.hasPrefix("model phone-4gb, 40000 apps"))
  }
}
