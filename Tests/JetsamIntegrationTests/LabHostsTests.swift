import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamTestKit
import JetsamTestTraits
import Testing

/// `jetsam-lab run --host`: a lab across two hosts, each a real jetsamd behind a real sshd on a loopback port,
/// reached only through ssh's forwarding of its control socket; one report across both, and a host that drops out.
// Serialized: each test runs two jetsamd and two sshd of its own; one at a time keeps their timing apart.
// sshd runs as a daemon stopped by its pidfile, not as a Foundation Process child (see LoopbackSSHD).
@Suite(
  "Labs across hosts", .serialized,
  .enabled(if: isRoot, "needs root: jetsamd creates cgroups; sshd runs as root"),
  .enabled(if: LoopbackSSHD.isInstalled, "needs /usr/sbin/sshd (scripts/install-deps.sh test)"),
  .timeLimit(.minutes(5)), .offThePool)
struct LabHostsTests {
  /// Two hosts: a jetsamd and an sshd each, the client key and known hosts in an ssh config of the test's own.
  final class Fleet {
    let directory: String
    var daemons: [String: JetsamdInstance] = [:]
    var sshds: [String: LoopbackSSHD] = [:]
    let sshConfig: String

    init(hosts: [String]) throws {
      directory = try makeScratchDirectory()
      _ = try runCommand("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", directory + "/id"])
      let clientKey = try String(contentsOfFile: directory + "/id.pub", encoding: .utf8)
      var knownHosts: [String] = []
      // Every key first, then the servers.
      for name in hosts { try LoopbackSSHD.makeHostKey(in: directory + "/\(name)-sshd") }
      for name in hosts {
        let id = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        daemons[name] = try JetsamdInstance(
          directory: directory + "/\(name)-jetsamd", cgroupName: "jetsam-test-\(id)",
          config: "{ suspend: { backgroundGrace: null } }")
        let sshd = try LoopbackSSHD(directory: directory + "/\(name)-sshd", clientKey: clientKey)
        sshds[name] = sshd
        knownHosts.append(try sshd.knownHostsLine())
      }
      try knownHosts.joined(separator: "\n").write(
        toFile: directory + "/known_hosts", atomically: true, encoding: .utf8)
      // The host keys are checked for real: known_hosts holds the keys the test made.
      sshConfig = directory + "/ssh_config"
      try """
      Host *
        IdentityFile \(directory)/id
        IdentitiesOnly yes
        UserKnownHostsFile \(directory)/known_hosts
        StrictHostKeyChecking yes
      """.write(toFile: sshConfig, atomically: true, encoding: .utf8)
    }

    /// `--host NAME=ssh://root@127.0.0.1:PORT/SOCKET` for each host.
    var hostOptions: [String] {
      sshds.keys.sorted().flatMap { name in
        ["--host", "\(name)=ssh://root@127.0.0.1:\(sshds[name]!.port)\(daemons[name]!.socketPath)"]
      }
    }

    func stop() {
      for sshd in sshds.values { sshd.stop() }
      for daemon in daemons.values { _ = daemon.stop() }
      try? FileManager.default.removeItem(atPath: directory)
    }
  }

  /// The scenario file `steps` in a new file in `directory`.
  static func scenario(_ steps: String, in directory: String) throws -> String {
    let path = directory + "/fleet.json5"
    try """
    {
      name: "fleet",
      apps: { notes: { command: ["jetsam-demo-app"], acknowledgements: "always" } },
      steps: [\(steps)],
      expect: { noUnexpectedExits: true },
    }
    """.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  static func lab(_ arguments: [String]) -> [String] {
    [Binaries.current.directory + "/jetsam-lab", "run"] + arguments
  }

  @Test("a lab across two hosts over real sshd: launch, suspend, kill on both, records on each, one HTML report")
  func acrossTwoHosts() throws {
    let fleet = try Fleet(hosts: ["a", "b"])
    defer { fleet.stop() }
    var steps = ""
    for host in ["a", "b"] {
      steps += """
        { launch: "notes", host: "\(host)" },
        { background: "notes", host: "\(host)" },
        { suspend: "notes", host: "\(host)" },
        { expect: { state: { app: "notes", is: "suspended" } }, host: "\(host)" },
        { kill: "notes", host: "\(host)" },
        { expect: { exit: { app: "notes", reason: "memoryPressure", state: "suspended" } }, host: "\(host)" },

        """
      // Pressure on a only, its notes gone (b's steps follow, long enough for its push to arrive): a's device track
      // has the band, b's not.
      if host == "a" { steps += #"{ pressure: "warning", host: "a" },"# }
    }
    let file = try Self.scenario(steps, in: fleet.directory)
    let reports = fleet.directory + "/reports"
    let result = try runCommand(
      Self.lab([])[0], ["run", file, "--output", reports, "--ssh-config", fleet.sshConfig] + fleet.hostOptions,
      timeout: .seconds(180))
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(
      result.stdout.contains("ok ") && result.stdout.contains("b: kill notes (memoryPressure)"), "\(result.stdout)")

    // Each host's own jetsamd recorded its kill: the lab reached both.
    for name in ["a", "b"] {
      let records = fleet.daemons[name]!.exitRecords()
      #expect(
        records.map { "\($0.app) \($0.cause.reason.rawValue) \($0.lifecycle.state)" } == [
          "notes memoryPressure suspended"
        ])
    }
    let summary = try LabTests.summary(reports)
    let exits = try #require(summary["exits"] as? [[String: Any]])
    #expect(exits.compactMap { $0["app"] as? String } == ["a/notes", "b/notes"])
    let hosts = try #require(summary["hosts"] as? [[String: Any]])
    #expect(hosts.compactMap { $0["name"] as? String } == ["a", "b"])
    for host in hosts {
      let clock = try #require(host["clock"] as? [String: Any])
      // Both hosts are this machine: the offset is within the round trip, which loopback keeps under a second.
      let roundTrip = try #require(clock["roundTripNanoseconds"] as? Int)
      let offset = try #require(clock["offsetNanoseconds"] as? Int)
      #expect(roundTrip > 0 && roundTrip < 1_000_000_000 && abs(offset) <= roundTrip, "\(clock)")
      #expect(host["problem"] == nil, "\(host)")
    }
    // The forwardings are gone with the run.
    #expect(!FileManager.default.fileExists(atPath: reports + "/hosts/a.sock"))

    // The page, as headless Chromium renders it: both hosts, each app a lane on its host's track, both kills.
    let dom = try HeadlessChromium.dumpDOM("file://" + reports + "/report.html")
    #expect(dom.status == 0, "\(dom.stderr)")
    let body = try #require(dom.stdout.range(of: "<body[^>]*>", options: .regularExpression).map { dom.stdout[$0] })
    #expect(body.contains(#"data-ready="yes""#) && !body.contains("data-errors"), "\(body)")
    #expect(body.contains(#"data-hosts="2""#) && body.contains(#"data-lanes="2""#), "\(body)")
    #expect(body.contains(#"data-kills="2""#), "\(body)")
    #expect(dom.stdout.contains(#"<g class="lane" data-app="a/notes" data-host="a">"#))
    #expect(dom.stdout.contains(#"<g class="lane" data-app="b/notes" data-host="b">"#))
    // Each host its own device track: its pressure bands and its memory chart against its RAM, its lane and kill.
    let drawing = try #require(
      dom.stdout.range(of: #"<svg id="timeline".*?</svg>"#, options: .regularExpression).map { dom.stdout[$0] })
    let groups = drawing.components(separatedBy: #"<g class="device" data-host=""#).dropFirst()
    #expect(groups.map { String($0.prefix(2)) } == [#"a""#, #"b""#], "\(dom.stdout)")
    for (name, group) in zip(["a", "b"], groups) {
      #expect(group.contains(">\(name): memory<"), "\(group)")
      #expect(group.contains(#"<rect class="pressure" data-level="warning""#) == (name == "a"), "\(group)")
      #expect(group.contains(#" RAM</text>"#) || group.contains(#"(RAM)</text>"#), "\(group)")
      #expect(group.contains(#"<g class="lane" data-app="\#(name)/notes" data-host="\#(name)">"#), "\(group)")
      #expect(group.contains(#"<g class="kill" data-app="\#(name)/notes""#), "\(group)")
      let other = name == "a" ? "b" : "a"
      #expect(!group.contains(#"data-app="\#(other)/notes""#), "\(group)")
    }
    for (name, host) in zip(["a", "b"], hosts) {
      #expect(host["name"] as? String == name)
      #expect((host["ramBytes"] as? Int ?? 0) > 0, "\(host)")
    }
    // Each host's launch metrics, fetched through its forwarding, named as its lanes are.
    let metrics = try #require(summary["metrics"] as? [[String: Any]])
    let apps = metrics.compactMap { ($0["metaData"] as? [String: Any])?["bundleIdentifier"] as? String }
    #expect(apps.sorted() == ["a/notes", "b/notes"], "\(metrics)")
    #expect(body.contains(#"data-launch-rows="2""#), "\(body)")
    for name in ["a", "b"] {
      let row = try #require(
        dom.stdout.range(of: #"<tr data-app="\#(name)/notes">.*?</tr>"#, options: .regularExpression).map {
          dom.stdout[$0]
        })
      // What its own host measured: its memory while suspended.
      #expect(row.contains(#"<td>\#(name)/notes</td>"#), "\(row)")
      #expect(
        row.range(of: #"class="suspended-memory">[1-9][0-9,]* kB<"#, options: .regularExpression) != nil, "\(row)")
    }
    // The trace: one device process per host, each with its own available-memory counter.
    let trace = try TraceFile(contentsOf: reports + "/trace.json")
    let events = trace.events
    let pids = trace.processIDs
    #expect(pids.keys.filter { $0.hasSuffix("device") }.sorted() == ["a: device", "b: device"], "\(pids)")
    for name in ["a", "b"] {
      let device = try #require(pids["\(name): device"])
      #expect(
        events.contains { $0["name"] as? String == "available memory" && $0["pid"] as? Int == device },
        "\(name)")
    }
    for name in ["a", "b"] {
      let row = try #require(
        dom.stdout.range(of: #"<tr data-host="\#(name)">.*?</tr>"#, options: .regularExpression).map { dom.stdout[$0] })
      #expect(row.contains("ssh://root@127.0.0.1:\(fleet.sshds[name]!.port)"), "\(row)")
      #expect(
        row.range(of: #"class="clock">[+-][0-9.]+ ms ± [0-9.]+ ms<"#, options: .regularExpression) != nil, "\(row)")
      #expect(row.contains("reachable to the end"), "\(row)")
    }
  }

  @Test("a host whose sshd stops mid-run fails its remaining steps, naming it; the other host's steps go on")
  func hostDropsOut() throws {
    let fleet = try Fleet(hosts: ["a", "b"])
    defer { fleet.stop() }
    let file = try Self.scenario(
      """
      { launch: "notes", host: "a" },
      { launch: "notes", host: "b" },
      { wait: "15s", host: "a" },
      { background: "notes", host: "b" },
      { background: "notes", host: "a" },
      { expect: { state: { app: "notes", is: "background" } }, host: "a" },
      """, in: fleet.directory)
    let reports = fleet.directory + "/reports"
    let lab = try ChildProcess(
      Self.lab([])[0], ["run", file, "--output", reports, "--ssh-config", fleet.sshConfig] + fleet.hostOptions)
    defer { if lab.isRunning { _ = lab.stop() } }
    // Once b's launch is done (the lab is in its wait), b's sshd goes down with its sessions.
    #expect(
      eventually(timeout: .seconds(60), interval: .milliseconds(20)) {
        lab.log.first { $0.contains("steps[1] b: launch notes") } != nil || !lab.isRunning
      })
    try #require(lab.isRunning, "\(lab.log.text)")
    fleet.sshds["b"]!.stop()
    #expect(lab.waitForExit(timeout: 120), "\(lab.log.text)")
    #expect(lab.terminationStatus == 1, "\(lab.log.text)")

    let summary = try LabTests.summary(reports)
    let steps = try #require(summary["steps"] as? [[String: Any]])
    func step(_ location: String) -> [String: Any]? { steps.first { $0["location"] as? String == location } }
    #expect(step("steps[0]")?["outcome"] as? String == "passed")
    #expect(step("steps[1]")?["outcome"] as? String == "passed")
    let dropped = try #require(step("steps[3]"))
    #expect(dropped["outcome"] as? String == "error", "\(dropped)")
    let message = dropped["message"] as? String ?? ""
    #expect(message.hasPrefix("host b (ssh://root@127.0.0.1:\(fleet.sshds["b"]!.port)"), "\(message)")
    #expect(message.contains("dropped out") && message.contains("ssh ended"), "\(message)")
    // a's steps went on after b dropped out.
    #expect(step("steps[4]")?["outcome"] as? String == "passed", "\(steps)")
    #expect(step("steps[5]")?["outcome"] as? String == "passed", "\(steps)")
    let hosts = try #require(summary["hosts"] as? [[String: Any]])
    #expect(hosts.first { $0["name"] as? String == "a" }?["problem"] == nil)
    #expect((hosts.first { $0["name"] as? String == "b" }?["problem"] as? String)?.contains("dropped out") == true)
    #expect(lab.log.text.contains("host b") && lab.log.text.contains("FAILED"), "\(lab.log.text)")
    // Only a's apps have launch metrics: b dropped out before the end, and the page says so.
    let metrics = try #require(summary["metrics"] as? [[String: Any]])
    let apps = metrics.compactMap { ($0["metaData"] as? [String: Any])?["bundleIdentifier"] as? String }
    #expect(apps == ["a/notes"], "\(metrics)")
    let html = try String(contentsOfFile: reports + "/report.html", encoding: .utf8)
    #expect(html.contains(#"<p class="no-metrics" data-host="b">No launch metrics from b: host b ("#), "\(html)")
  }
}
