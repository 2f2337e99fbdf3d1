import Foundation
import JetsamCore
import JetsamProtocol
import JetsamReportPage

/// The run as one self-contained HTML page (no network: inline SVG, CSS and script): the timeline (memory stacked
/// per app against the device's RAM, one lane of lifecycle states per app, pressure bands, kill markers that show
/// their exit records, signposts and memory warnings; across hosts one such device track per host, each with its
/// own memory, RAM and pressure, its apps' lanes under it), the steps with their outcomes, the verdicts and the exit
/// records.
enum HTMLReport {
  /// Drawing sizes, in SVG units.
  static let width = 1200.0
  static let left = 110.0
  static let memoryHeight = 180.0
  static let laneHeight = 26.0

  /// Colours of lifecycle states (CSS classes `state-NAME` use the same).
  static let stateColours: [LifecycleState: String] = [
    .launching: "#9ad0a0", .foregroundActive: "#2e9e4f", .foregroundInactive: "#7cc58f", .background: "#3b7dd8",
    .suspended: "#9aa3ad",
  ]
  /// The page's own style, after the one all reports share (``ReportPage/css``): the outcome badge, the steps'
  /// outcomes, the selected exit record and its panel.
  static let css = """
    .badge { display: inline-block; padding: 2px 10px; border-radius: 10px; color: #fff; font-weight: 600; }
    .passed { background: #2e7d32; } .failed { background: #c62828; }
    tr.outcome-failed td, tr.outcome-error td { background: #ffebee; }
    tr.selected td { background: #fff59d; }
    .kill { cursor: pointer; }
    pre#record { background: #f5f5f5; padding: 8px; max-height: 320px; overflow: auto; }
    """

  static func html(_ run: LabRun) -> String {
    let apps = appOrder(run)
    let time = TimeScale(run: run)
    var svg = ""
    // Each device a block of its own, one under the other: its memory chart, then its apps' lanes, its pressure bands
    // behind both. On one daemon the one device, as it always was; across hosts a group per host.
    var top = 0.0
    for device in run.devices {
      let lanes = device.apps(of: apps)
      let block = memoryHeight + 30 + Double(lanes.count) * laneHeight
      if let host = device.host { svg += #"<g class="device" data-host="\#(escape(host))">"# }
      svg += pressureBands(device, top: top, height: block + 10, time: time)
      svg += memoryChart(device, apps: apps, top: top, time: time)
      for (row, app) in lanes.enumerated() {
        svg += lane(
          app, colour: apps.firstIndex(of: app) ?? 0, top: top + memoryHeight + 30 + Double(row) * laneHeight, run: run,
          time: time)
      }
      if device.host != nil { svg += "</g>" }
      top += block + 20
    }
    let height = top + 10
    // Time axis.
    let axisY = height - 8
    let tick = ReportPage.timeTick(time.duration)
    var t = 0.0
    while t <= time.duration + 1e-9 {
      let tx = left + t / time.duration * time.plotWidth
      svg +=
        ##"<line x1="\##(f(tx))" y1="\##(f(axisY - 12))" x2="\##(f(tx))" y2="\##(f(axisY - 8))" stroke="#333"/>"##
        + #"<text x="\#(f(tx))" y="\#(f(axisY))" class="axis" text-anchor="middle">\#(ReportPage.timeLabel(t))</text>"#
      t += tick
    }

    let timelineSVG =
      #"<svg id="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(f(width)) \#(f(height))" "#
      + #"width="\#(f(width))" height="\#(f(height))">\#(svg)</svg>"#
    return page(run, timeline: timelineSVG, apps: apps)
  }

  /// Where a time of the run is drawn: from its origin at `left` to its end at the right edge.
  struct TimeScale {
    let origin: Int64
    let duration: Double
    let plotWidth = width - left - 10
    /// The run's end, on its clock.
    var end: Int64 { origin + Int64(duration * 1e9) }

    init(run: LabRun) {
      origin = run.originNanoseconds
      duration = max(run.durationSeconds, 0.001)
    }

    func x(_ nanoseconds: Int64) -> Double {
      left + min(max(Double(nanoseconds - origin) / 1e9 / duration, 0), 1) * plotWidth
    }
  }

  /// The device's pressure bands, `height` down from `top`: behind its memory and its lanes.
  static func pressureBands(_ device: DeviceTrack, top: Double, height: Double, time: TimeScale) -> String {
    var svg = ""
    var level = PressureLevel.normal
    var levelSince = time.origin
    func band(until end: Int64) {
      guard let colour = pressureColour(level) else { return }
      svg +=
        #"<rect class="pressure" data-level="\#(level.name)" x="\#(f(time.x(levelSince)))" y="\#(f(top))" "#
        + #"width="\#(f(max(time.x(end) - time.x(levelSince), 1)))" height="\#(f(height))" fill="\#(colour)">"#
        + "<title>\(device.host.map { "\($0): " } ?? "")pressure \(level.name)</title></rect>"
    }
    for change in device.changes where change.kind == .pressure {
      band(until: change.monotonicNanoseconds)
      level = change.level ?? .normal
      levelSince = change.monotonicNanoseconds
    }
    band(until: time.end)
    return svg
  }

  /// The device's memory from `top`, stacked per app (of `apps`, which give each its colour), against its RAM.
  static func memoryChart(_ device: DeviceTrack, apps: [String], top: Double, time: TimeScale) -> String {
    var svg = ""
    let samples = device.changes.filter { $0.kind == .memory }
    // The scale: the device's RAM, or less when the apps never came near it (so that they show), never below a
    // tenth of it.
    let ram = Double(max(device.ramBytes, 1))
    let peak = samples.map { Double(($0.memory ?? [:]).values.reduce(0, +)) }.max() ?? 0
    let scale = min(ram, max(peak * 1.15, ram / 10))
    func y(_ bytes: Double) -> Double { top + memoryHeight - min(bytes / scale, 1) * (memoryHeight - 10) }
    let scaleLabel =
      ByteSize.format(Int64(scale)) + (scale < ram ? " of \(ByteSize.format(device.ramBytes)) RAM" : " (RAM)")
    var below = [Double](repeating: 0, count: samples.count)
    for (index, app) in apps.enumerated() {
      let above = samples.enumerated().map { below[$0.offset] + Double($0.element.memory?[app] ?? 0) }
      if above != below {
        let upper = samples.indices.map { "\(f(time.x(samples[$0].monotonicNanoseconds))),\(f(y(above[$0])))" }
        let lower = samples.indices.reversed().map {
          "\(f(time.x(samples[$0].monotonicNanoseconds))),\(f(y(below[$0])))"
        }
        svg +=
          #"<polygon class="memory" data-app="\#(escape(app))" points="\#((upper + lower).joined(separator: " "))" "#
          + #"fill="\#(appColour(index))" fill-opacity="0.8"><title>\#(escape(app)) memory</title></polygon>"#
      }
      below = above
    }
    let bottom = top + memoryHeight
    return svg
      + ##"<line x1="\##(f(left))" y1="\##(f(bottom))" x2="\##(f(width - 10))" y2="\##(f(bottom))" stroke="#333"/>"##
      + #"<text x="4" y="\#(f(top + 14))" class="axis">\#(scaleLabel)</text>"#
      + #"<text x="4" y="\#(f(bottom - 2))" class="axis">\#(device.host.map { "\(escape($0)): " } ?? "")memory</text>"#
  }

  /// One app's lane at `top`: its states, then markers on top; `colour` is its index in the palette.
  static func lane(_ app: String, colour: Int, top: Double, run: LabRun, time: TimeScale) -> String {
    var svg =
      #"<g class="lane" data-app="\#(escape(app))"\#(hostAttribute(app, run))><rect x="4" y="\#(f(top + 8))" width="9" height="9" "#
      + #"fill="\#(appColour(colour))"/><text x="17" y="\#(f(top + 17))" class="lane-name">"#
      + "\(escape(app))</text>"
    for slice in states(of: app, in: run, end: time.end) {
      svg +=
        #"<rect class="state state-\#(slice.state.rawValue)" data-state="\#(slice.state.rawValue)" "#
        + #"x="\#(f(time.x(slice.from)))" y="\#(f(top + 4))" width="\#(f(max(time.x(slice.to) - time.x(slice.from), 1)))" "#
        + #"height="\#(f(laneHeight - 8))" fill="\#(stateColours[slice.state] ?? "#ccc")">"#
        + "<title>\(escape(app)) launch \(slice.launch): \(slice.state.rawValue)</title></rect>"
    }
    for change in run.timeline where change.app == app {
      let cx = f(time.x(change.monotonicNanoseconds))
      switch change.kind {
      case .exit:
        guard let record = change.record else { continue }
        let id = "exit-\(run.exits.firstIndex { $0.labKey == record.labKey && $0.pid == record.pid } ?? 0)"
        svg +=
          #"<g class="kill" data-app="\#(escape(app))" data-exit="\#(id)" tabindex="0">"#
          + ##"<path d="M\##(cx) \##(f(top + 2)) l6 -0 l-6 11 l-6 -11 z" fill="#c62828"/>"##
          + ##"<line x1="\##(cx)" y1="\##(f(top + 2))" x2="\##(cx)" y2="\##(f(top + laneHeight - 2))" stroke="#c62828" stroke-width="2"/>"##
          + "<title>\(escape(record.labSummary)) (\(escape(record.cause.terminationReason)))</title></g>"
      case .signpost:
        svg +=
          #"<line class="signpost" x1="\#(cx)" y1="\#(f(top + laneHeight - 6))" x2="\#(cx)" y2="\#(f(top + laneHeight))" "#
          + ##"stroke="#111" stroke-width="2"><title>signpost \##(escape(change.name ?? "")) \##(change.phase?.rawValue ?? "")</title></line>"##
      case .appEvent where change.name == "memoryWarning":
        svg +=
          ##"<circle class="warning" cx="\##(cx)" cy="\##(f(top + 6))" r="4" fill="#f9a825" stroke="#6d4c00">"##
          + "<title>memory warning (\(change.level?.name ?? "warning"))</title></circle>"
      case .diagnostic:
        svg +=
          ##"<rect class="diagnostic" x="\##(f(time.x(change.monotonicNanoseconds) - 3))" y="\##(f(top + 1))" width="6" height="6" fill="#6a1b9a">"##
          + "<title>diagnostic: \(escape(change.name ?? ""))</title></rect>"
      case .sockets:
        let defuncted = (change.sockets ?? []).map(\.summary) + (change.problem.map { ["problem: " + $0] } ?? [])
        svg +=
          ##"<rect class="sockets" x="\##(f(time.x(change.monotonicNanoseconds) - 3))" y="\##(f(top + laneHeight - 7))" width="6" height="6" fill="#00838f">"##
          + "<title>sockets defuncted: \(escape(defuncted.joined(separator: "; ")))</title></rect>"
      default: break
      }
    }
    return svg + "</g>"
  }

  /// The page around the timeline: header, legend, tables, the record panel and its script.
  private static func page(_ run: LabRun, timeline: String, apps: [String]) -> String {
    let failed = run.failures.count
    var html = """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8">
      <title>jetsam lab: \(escape(run.scenario))</title>
      <style>
      \(ReportPage.css)
      \(css)
      </style></head>
      <body data-ready="no">
      <h1>\(escape(run.scenario)) <span class="badge \(run.passed ? "passed" : "failed")">\(run.passed ? "passed" : "failed")</span></h1>
      <p>\(escape(run.file)) · started \(escape(run.started)) · \(ReportPage.fixed(run.durationSeconds, 1)) s ·
      \(run.steps.count(where: \.isExpectation)) expectations, \(failed) failed · \(run.exits.count) exits</p>

      """
    html += hostsTable(run)
    html += "<h2>Timeline</h2>\n<div class=\"legend\">\n"
    for (state, colour) in stateColours.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
      html += #"<span><i class="swatch" style="background:\#(colour)"></i>\#(state.rawValue)</span>"#
    }
    for (level, colour) in ReportPage.pressureColours {
      html += #"<span><i class="swatch" style="background:\#(colour)"></i>pressure \#(level)</span>"#
    }
    html += ##"<span><i class="swatch" style="background:#c62828"></i>kill (click: its exit record)</span>"##
    html += "</div>\n\(timeline)\n<pre id=\"record\">Click a kill marker to see its exit record.</pre>\n"

    html += "<h2>Steps</h2>\n<table id=\"steps\"><tr><th>at</th><th>step</th><th>outcome</th><th>detail</th></tr>\n"
    for step in run.steps {
      html +=
        "<tr class=\"outcome-\(step.outcome.rawValue)\"><td>\(ReportPage.fixed(step.startSeconds, 3))s</td>"
        + "<td>\(escape(step.location)) \(escape(step.title))</td><td>\(step.outcome.rawValue)</td>"
        + "<td>\(escape((step.message ?? step.evidence ?? "") + step.throughNote))</td></tr>\n"
    }
    html +=
      "</table>\n<h2>Verdicts</h2>\n<table id=\"verdicts\"><tr><th>at</th><th>app</th><th>launch</th><th>kind</th><th>verdict</th></tr>\n"
    for change in run.timeline where change.kind == .verdict {
      html +=
        "<tr><td>\(ReportPage.fixed(Double(change.monotonicNanoseconds - run.originNanoseconds) / 1e9, 3))s</td>"
        + "<td>\(escape(change.app ?? ""))</td><td>\(change.launch ?? 0)</td><td>\(escape(change.name ?? ""))</td>"
        + "<td>\(escape(change.verdict ?? ""))</td></tr>\n"
    }
    html +=
      "</table>\n<h2>Exit records</h2>\n<table id=\"exits\"><tr><th>time</th><th>app</th><th>launch</th><th>reason</th><th>termination</th><th>state</th><th>memory</th></tr>\n"
    for (index, record) in run.exits.enumerated() {
      html +=
        "<tr id=\"exit-\(index)\"><td>\(escape(record.time))</td><td>\(escape(record.app))</td><td>\(record.launch)</td>"
        + "<td>\(record.cause.reason.rawValue)</td><td>\(escape(record.cause.terminationReason))</td>"
        + "<td>\(escape(record.lifecycle.state.rawValue))</td><td>\(ByteSize.format(record.usage.memoryBytes))</td></tr>\n"
    }
    html += "</table>\n" + launchTable(run)
    // The records for the panel, as JSON inside a script element (`<` escaped so that no text can end it).
    let records = (try? JSONEncoder.lab.encode(run.exits)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    html +=
      "<script id=\"records\" type=\"application/json\">\(records.replacingOccurrences(of: "<", with: "\\u003c"))</script>\n"
    html += """
      <script>
      "use strict";
      window.addEventListener("error", function (event) { document.body.dataset.errors = String(event.message); });
      (function () {
        var records = JSON.parse(document.getElementById("records").textContent);
        var panel = document.getElementById("record");
        function show(marker) {
          var id = marker.getAttribute("data-exit");
          var index = Number(id.slice(5));
          panel.textContent = JSON.stringify(records[index], null, 2);
          document.querySelectorAll("#exits tr.selected").forEach(function (row) { row.classList.remove("selected"); });
          var row = document.getElementById(id);
          if (row) { row.classList.add("selected"); }
        }
        document.querySelectorAll("#timeline .kill").forEach(function (marker) {
          marker.addEventListener("click", function () { show(marker); });
          marker.addEventListener("keydown", function (event) { if (event.key === "Enter") { show(marker); } });
        });
        document.body.dataset.kills = String(document.querySelectorAll("#timeline .kill").length);
        document.body.dataset.lanes = String(document.querySelectorAll("#timeline .lane").length);
        document.body.dataset.hosts = String(document.querySelectorAll("#hosts tr[data-host]").length);
        document.body.dataset.launchRows = String(document.querySelectorAll("#launch-metrics tr[data-app]").length);
        document.body.dataset.ready = "yes";
      })();
      </script>
      </body></html>

      """
    return html
  }

  /// Each app's launch, resume and hang times, memory while suspended and signposts (``LaunchFigures``), from
  /// jetsamd's payloads; across hosts each host's apps as `HOST/app`, and a note for a host that has none.
  static func launchTable(_ run: LabRun) -> String {
    let payloads = run.metrics ?? []
    // Across hosts, a host without payloads says why: it dropped out (or was never reached), or its jetsamd gave none.
    let without = (run.hosts ?? []).filter { host in
      !payloads.contains { $0.metaData.bundleIdentifier.hasPrefix(host.name + "/") }
    }
    guard !payloads.isEmpty || !without.isEmpty else { return "" }
    var notes = ""
    for host in without {
      notes +=
        "<p class=\"no-metrics\" data-host=\"\(escape(host.name))\">No launch metrics from \(escape(host.name)): "
        + "\(escape(host.problem ?? "its jetsamd gave none"))</p>\n"
    }
    guard !payloads.isEmpty else { return "<h2>Launch metrics</h2>\n" + notes }
    var html =
      "<h2>Launch metrics</h2>\n<table id=\"launch-metrics\"><tr><th>app</th><th>launches</th><th>launch time</th>"
      + "<th>resumes</th><th>resume time</th><th>hangs</th><th>hang time</th><th>suspended memory</th>"
      + "<th>signposts</th></tr>\n"
    for figures in payloads.map(LaunchFigures.init) {
      html +=
        "<tr data-app=\"\(escape(figures.app))\"><td>\(escape(figures.app))</td><td>\(figures.launches)</td>"
        + "<td class=\"launch-time\">\(escape(figures.launchTimes))</td><td>\(figures.resumes)</td>"
        + "<td class=\"resume-time\">\(escape(figures.resumeTimes))</td><td>\(figures.hangs)</td>"
        + "<td class=\"hang-time\">\(escape(figures.hangTimes))</td>"
        + "<td class=\"suspended-memory\">\(escape(figures.suspendedMemory))</td>"
        + "<td class=\"signposts\">\(escape(figures.signposts))</td></tr>\n"
    }
    return html + "</table>\n" + notes
  }

  /// Apps in the order they first appear (those running at the start first).
  static func appOrder(_ run: LabRun) -> [String] {
    var order = run.initialApps.filter { $0.status.state.isRunning }.map(\.status.name)
    for change in run.timeline {
      if let app = change.app, change.kind == .state || change.kind == .memory || change.kind == .exit,
        !order.contains(app)
      {
        order.append(app)
      }
    }
    // Across hosts, each host's lanes together (its track), in the order the hosts were given.
    if let hosts = run.hosts {
      let rank = Dictionary(uniqueKeysWithValues: hosts.enumerated().map { ($0.element.name, $0.offset) })
      order = order.enumerated().sorted {
        (rank[host(of: $0.element) ?? ""] ?? 0, $0.offset) < (rank[host(of: $1.element) ?? ""] ?? 0, $1.offset)
      }.map(\.element)
    }
    return order
  }

  /// The host of a lane across hosts (`a` of `a/notes`).
  static func host(of app: String) -> String? {
    app.firstIndex(of: "/").map { String(app[..<$0]) }
  }

  /// ` data-host="a"` for a lane of a run across hosts, else nothing.
  static func hostAttribute(_ app: String, _ run: LabRun) -> String {
    guard run.hosts != nil, let host = host(of: app) else { return "" }
    return #" data-host="\#(escape(host))""#
  }

  /// The hosts of a run across hosts: where each was, its clock against the lab's, and whether it dropped out.
  static func hostsTable(_ run: LabRun) -> String {
    guard let hosts = run.hosts else { return "" }
    var html =
      "<h2>Hosts</h2>\n<p>Times are the lab's: each host's are moved by its clock offset, estimated from request "
      + "round trips (± half the shortest).</p>\n"
      + "<table id=\"hosts\"><tr><th>host</th><th>reached at</th><th>clock offset</th><th>status</th></tr>\n"
    for host in hosts {
      html +=
        "<tr data-host=\"\(escape(host.name))\"><td>\(escape(host.name))</td><td>\(escape(host.spec))</td>"
        + "<td class=\"clock\">\(escape(host.clock?.text ?? "—"))</td>"
        + "<td class=\"status\">\(escape(host.problem ?? "reachable to the end"))</td></tr>\n"
    }
    return html + "</table>\n"
  }

  /// An app's lifecycle states as intervals.
  static func states(of app: String, in run: LabRun, end: Int64)
    -> [(state: LifecycleState, from: Int64, to: Int64, launch: Int)]
  {
    var slices: [(state: LifecycleState, from: Int64, to: Int64, launch: Int)] = []
    var open: (state: LifecycleState, from: Int64, launch: Int)?
    if let initial = run.initialApps.first(where: { $0.status.name == app })?.status, initial.state.isRunning {
      open = (initial.state, run.originNanoseconds, initial.launch)
    }
    for change in run.timeline where change.kind == .state && change.app == app {
      if let current = open {
        slices.append((current.state, current.from, change.monotonicNanoseconds, current.launch))
      }
      open = change.to.map { $0.isRunning ? ($0, change.monotonicNanoseconds, change.launch ?? 0) : nil } ?? nil
    }
    if let current = open { slices.append((current.state, current.from, end, current.launch)) }
    return slices
  }

  /// The background of a pressure level's band (``ReportPage/pressureColours``); none for normal.
  static func pressureColour(_ level: PressureLevel) -> String? {
    ReportPage.pressureColours.first { $0.level == level.name }?.colour
  }

  /// The colour of the app at `index` in the page's order, the shared series colours in turn.
  static func appColour(_ index: Int) -> String {
    ReportPage.seriesColours[index % ReportPage.seriesColours.count]
  }

  /// A coordinate in the SVG, to a tenth of a unit.
  private static func f(_ value: Double) -> String { ReportPage.fixed(value, 1) }

  private static func escape(_ text: String) -> String { ReportPage.escape(text) }
}

extension JSONEncoder {
  /// Sorted keys, slashes as they are.
  static var lab: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }
}
