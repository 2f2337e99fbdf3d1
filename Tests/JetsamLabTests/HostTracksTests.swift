import Foundation
import JetsamCore
import JetsamProtocol
import JetsamTestKit
import Testing

@testable import JetsamLab

/// A run across two hosts, made up: each host's device (its memory against its own RAM, its pressure) is a track of
/// its own in the HTML page and in the trace, its apps under it, and its apps' payloads are named `HOST/app`.
struct HostTracksTests {
  static let gib: Int64 = 1 << 30

  /// A host's app `notes`, launched at `at` seconds on the host's clock, then a memory sample of `memory` bytes and a
  /// pressure change to `level`.
  static func recording(
    _ name: String, ram: Int64, offset: Int64, memory: Int64, level: PressureLevel, metrics: Bool,
    problem: String? = nil
  ) -> HostRecording {
    func at(_ seconds: Double) -> Int64 { Int64(seconds * 1e9) + offset }
    var launched = LiveChange(.state, at: at(1))
    launched.app = "notes"
    launched.launch = 1
    launched.from = .notRunning
    launched.to = .foregroundActive
    var sample = LiveChange(.memory, at: at(2))
    sample.memory = ["notes": memory]
    sample.availableBytes = ram - memory
    var pressure = LiveChange(.pressure, at: at(3))
    pressure.previousLevel = .normal
    pressure.level = level
    pressure.availableBytes = ram - memory
    var later = sample
    later.monotonicNanoseconds = at(4)
    let payload = MetricPayload(
      timeStampBegin: "", timeStampEnd: "",
      metaData: PayloadMetaData(bundleIdentifier: "notes", osVersion: "", platformArchitecture: "", deviceType: ""),
      applicationExitMetrics: AppExitMetrics())
    return HostRecording(
      track: HostTrack(
        name: name, spec: "ssh://root@\(name)",
        clock: HostClock(offsetNanoseconds: offset, roundTripNanoseconds: 1, probes: 5),
        ramBytes: ram, problem: problem),
      changes: [launched, sample, pressure, later], metrics: metrics ? [payload] : nil)
  }

  /// Host a (1 GiB, its clock 7 s ahead of the lab's) goes to `warning`; host b (4 GiB) to `critical` and drops out.
  static func run() -> LabRun {
    var run = LabRun(
      scenario: "fleet", file: "fleet.json5", started: Date(), origin: 0, steps: [],
      hosts: [
        recording("a", ram: gib, offset: 7_000_000_000, memory: 300 << 20, level: .warning, metrics: true),
        recording(
          "b", ram: 4 * gib, offset: 0, memory: 100 << 20, level: .critical, metrics: false,
          problem: "host b (ssh://root@b) dropped out: ssh ended"),
      ], resources: nil)
    run.durationSeconds = 10
    return run
  }

  /// The markup of each host's device group, by host: from its opening to the next group or the end of the drawing.
  static func groups(_ html: String) -> [String: Substring] {
    var groups: [String: Substring] = [:]
    let opening = #"<g class="device" data-host=""#
    var rest = html[...]
    while let start = rest.range(of: opening) {
      let host = rest[start.upperBound...].prefix { $0 != "\"" }
      let after = rest[start.upperBound...]
      let end = after.range(of: opening)?.lowerBound ?? after.range(of: "</svg>")?.lowerBound ?? after.endIndex
      groups[String(host)] = rest[start.lowerBound..<end]
      rest = rest[end...]
    }
    return groups
  }

  @Test("the page: each host's device its own group, with its own pressure bands, memory against its RAM, and lanes")
  func htmlPerHost() throws {
    let html = HTMLReport.html(Self.run())
    let groups = Self.groups(html)
    #expect(groups.keys.sorted() == ["a", "b"])
    let a = try #require(groups["a"])
    let b = try #require(groups["b"])
    // Each host's pressure is its own: a's warning band is not over b's lanes, nor b's critical over a's.
    #expect(a.contains(#"<rect class="pressure" data-level="warning""#) && !a.contains(#"data-level="critical""#))
    #expect(b.contains(#"<rect class="pressure" data-level="critical""#) && !b.contains(#"data-level="warning""#))
    // Each host's memory, stacked of its own apps, against its own RAM.
    #expect(a.contains(#"<polygon class="memory" data-app="a/notes""#) && !a.contains(#"data-app="b/notes""#))
    #expect(b.contains(#"<polygon class="memory" data-app="b/notes""#) && !b.contains(#"data-app="a/notes""#))
    #expect(a.contains("of \(ByteSize.format(Self.gib)) RAM") && !a.contains(ByteSize.format(4 * Self.gib)), "\(a)")
    #expect(b.contains("of \(ByteSize.format(4 * Self.gib)) RAM"), "\(b)")
    #expect(a.contains(">a: memory<") && b.contains(">b: memory<"))
    // Each host's lanes under its own device.
    #expect(a.contains(#"<g class="lane" data-app="a/notes" data-host="a">"#))
    #expect(b.contains(#"<g class="lane" data-app="b/notes" data-host="b">"#))
    // b's group is below a's: its bands start below a's block.
    let bTop = try #require(b.firstMatch(of: /<rect class="pressure" [^>]*y="([0-9.]+)"/).map { Double($0.1)! })
    #expect(bTop >= HTMLReport.memoryHeight + 30 + HTMLReport.laneHeight)
  }

  @Test("each host's device changes are its own, moved onto the lab's clock by its offset")
  func devicesOnLabClock() throws {
    let run = Self.run()
    // a's warning at 10 s of its clock, which is 7 s ahead of the lab's: at 3 s of the run, as b's critical is.
    let changes = run.devices.map { $0.changes.filter { $0.kind == .pressure }.map(\.monotonicNanoseconds) }
    #expect(changes == [[3_000_000_000], [3_000_000_000]])
  }

  @Test("the trace: a device process per host with its own counters, its apps' processes after it")
  func tracePerHost() throws {
    let trace = try TraceFile(TraceReport.json(Self.run()))
    let events = trace.events
    let pids = trace.processIDs
    #expect(pids.keys.filter { $0.hasSuffix("device") }.sorted() == ["a: device", "b: device"], "\(pids)")
    let aDevice = try #require(pids["a: device"])
    let bDevice = try #require(pids["b: device"])
    let aNotes = try #require(pids["a/notes"])
    let bNotes = try #require(pids["b/notes"])
    #expect(aDevice < aNotes && aNotes < bDevice && bDevice < bNotes, "\(pids)")
    #expect(pids["lab"] == TraceReport.devicePid)
    func counters(_ name: String, pid: Int) -> [[String: Any]] {
      events.filter { $0["ph"] as? String == "C" && $0["name"] as? String == name && $0["pid"] as? Int == pid }
    }
    #expect(
      counters("pressure level", pid: aDevice).compactMap { ($0["args"] as? [String: Any])?["level"] as? Int } == [1])
    #expect(
      counters("pressure level", pid: bDevice).compactMap { ($0["args"] as? [String: Any])?["level"] as? Int } == [3])
    #expect(
      counters("available memory", pid: aDevice).compactMap { ($0["args"] as? [String: Any])?["bytes"] as? Int }
        == [Int(Self.gib - (300 << 20)), Int(Self.gib - (300 << 20))])
    #expect(counters("available memory", pid: bDevice).count == 2)
    #expect(counters("available memory", pid: TraceReport.devicePid).isEmpty)
  }

  @Test("launch metrics: a reachable host's apps as HOST/app; a host that dropped out has none, and says why")
  func metricsPerHost() throws {
    let run = Self.run()
    #expect(run.metrics?.map(\.metaData.bundleIdentifier) == ["a/notes"])
    #expect(run.hosts?.map(\.ramBytes) == [Self.gib, 4 * Self.gib])
    let html = HTMLReport.html(run)
    #expect(html.contains(#"<tr data-app="a/notes"><td>a/notes</td>"#))
    #expect(!html.contains(#"<tr data-app="b/notes""#))
    #expect(
      html.contains(#"<p class="no-metrics" data-host="b">No launch metrics from b: host b (ssh://root@b) dropped out"#)
    )
    #expect(!html.contains(#"class="no-metrics" data-host="a""#))
  }

  @Test("one daemon: one device, drawn as it always was (no host groups), the trace's device process has the steps")
  func singleDevice() throws {
    var host = Self.recording("x", ram: Self.gib, offset: 0, memory: 300 << 20, level: .urgent, metrics: false)
    host.changes = host.changes.map { change in
      var change = change
      change.app = change.app.map { _ in "notes" }
      return change
    }
    let run = LabRun(
      scenario: "one", file: "one.json5", started: "", originNanoseconds: 0, durationSeconds: 10, ramBytes: Self.gib,
      steps: [], exits: [], timeline: host.changes, initialApps: [], chaos: nil, resources: nil, metrics: nil)
    let html = HTMLReport.html(run)
    #expect(!html.contains(#"class="device""#))
    #expect(html.contains(#"<rect class="pressure" data-level="urgent""#))
    #expect(html.contains(#"<g class="lane" data-app="notes"><rect"#))
    #expect(html.contains("of \(ByteSize.format(Self.gib)) RAM") && html.contains(#">memory</text>"#))
    let trace = try TraceFile(TraceReport.json(run))
    let events = trace.events
    #expect(trace.processIDs == ["device": 1, "notes": 2])
    #expect(events.contains { $0["name"] as? String == "pressure level" && $0["pid"] as? Int == 1 })
  }
}
