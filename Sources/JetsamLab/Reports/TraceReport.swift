import Foundation
import JetsamCore
import JetsamProtocol

/// The run in Chrome's Trace Event format (JSON object form), which Perfetto's UI and chrome://tracing open: one
/// process per app, with its lifecycle states as slices, its memory as a counter, its signposts as slices or
/// instants, and its kills, warnings, watchdog diagnostics and exit as instants carrying their records; one
/// "device" process with the available memory and the pressure level as counters, and the lab's steps as slices.
/// Across hosts a "lab" process has the steps, and each host has a device process of its own ("a: device", its
/// counters), its apps' processes after it.
enum TraceReport {
  /// The device's track on one daemon; across hosts the lab's own (its steps), each host's device after it.
  static let devicePid = 1

  static func json(_ run: LabRun) throws -> Data {
    var events: [[String: Any]] = []
    func micros(_ nanoseconds: Int64) -> Double { Double(nanoseconds - run.originNanoseconds) / 1000 }
    let end = Int64(run.durationSeconds * 1e9) + run.originNanoseconds

    // Tracks: the device first, then each app in the order it first appears. Across hosts the lab's steps first,
    // then each host's device ("a: device") followed by that host's apps.
    var appOrder: [String] = run.initialApps.map(\.status.name)
    for change in run.timeline {
      if let app = change.app, !appOrder.contains(app) { appOrder.append(app) }
    }
    var pids: [String: Int] = [:]
    var hostPids: [String: Int] = [:]
    var next = devicePid
    if run.hosts != nil {
      events.append(meta("process_name", pid: devicePid, tid: 0, name: "lab"))
      events.append(meta("process_sort_index", pid: devicePid, tid: 0, sortIndex: devicePid))
      events.append(meta("thread_name", pid: devicePid, tid: 1, name: "lab steps"))
      next += 1
    }
    for device in run.devices {
      if let host = device.host {
        hostPids[host] = next
        events.append(meta("process_name", pid: next, tid: 0, name: "\(host): device"))
        events.append(meta("process_sort_index", pid: next, tid: 0, sortIndex: next))
        events.append(meta("thread_name", pid: next, tid: 1, name: "pressure"))
      } else {
        events.append(meta("process_name", pid: devicePid, tid: 0, name: "device"))
        events.append(meta("thread_name", pid: devicePid, tid: 1, name: "lab steps"))
      }
      next += 1
      for app in device.apps(of: appOrder) {
        pids[app] = next
        next += 1
      }
    }
    for (app, pid) in pids {
      events.append(meta("process_name", pid: pid, tid: 0, name: app))
      events.append(meta("process_sort_index", pid: pid, tid: 0, sortIndex: pid))
      events.append(meta("thread_name", pid: pid, tid: 1, name: "lifecycle"))
      events.append(meta("thread_name", pid: pid, tid: 2, name: "signposts"))
    }
    // The device track a change of the timeline (its `index`) is on: its host's across hosts.
    func deviceTrack(of index: Int) -> Int {
      guard let hosts = run.changeHosts, hosts.indices.contains(index) else { return devicePid }
      return hostPids[hosts[index]] ?? devicePid
    }

    // Lifecycle states as back-to-back slices, from the snapshot's states and each state change.
    var current: [String: (state: LifecycleState, since: Int64, launch: Int)] = [:]
    for app in run.initialApps where app.status.state.isRunning {
      current[app.status.name] = (app.status.state, run.originNanoseconds, app.status.launch)
    }
    func closeState(_ app: String, at time: Int64) {
      guard let open = current[app], let pid = pids[app] else { return }
      events.append([
        "ph": "X", "name": open.state.rawValue, "cat": "lifecycle", "pid": pid, "tid": 1, "ts": micros(open.since),
        "dur": max(0, micros(time) - micros(open.since)), "args": ["launch": open.launch],
      ])
      current[app] = nil
    }
    for (index, change) in run.timeline.enumerated() {
      let ts = micros(change.monotonicNanoseconds)
      let pid = change.app.flatMap { pids[$0] }
      let device = deviceTrack(of: index)
      switch change.kind {
      case .state:
        guard let app = change.app, let to = change.to else { continue }
        closeState(app, at: change.monotonicNanoseconds)
        if to.isRunning { current[app] = (to, change.monotonicNanoseconds, change.launch ?? 0) }
      case .memory:
        for (app, bytes) in change.memory ?? [:] {
          guard let pid = pids[app] else { continue }
          events.append(["ph": "C", "name": "memory", "pid": pid, "ts": ts, "args": ["bytes": bytes]])
        }
        if let available = change.availableBytes {
          events.append([
            "ph": "C", "name": "available memory", "pid": device, "ts": ts, "args": ["bytes": available],
          ])
        }
      case .pressure:
        events.append([
          "ph": "C", "name": "pressure level", "pid": device, "ts": ts,
          "args": ["level": (change.level ?? .normal).rank],
        ])
        events.append(
          instant(
            "pressure \(change.level?.name ?? "?")", pid: device, tid: 1, ts: ts,
            args: ["availableBytes": change.availableBytes ?? 0], scope: "p"))
      case .signpost:
        guard let pid, let name = change.name else { continue }
        switch change.phase {
        case .begin: events.append(["ph": "B", "name": name, "cat": "signpost", "pid": pid, "tid": 2, "ts": ts])
        case .end: events.append(["ph": "E", "name": name, "cat": "signpost", "pid": pid, "tid": 2, "ts": ts])
        default: events.append(instant(name, pid: pid, tid: 2, ts: ts, args: [:]))
        }
      case .kill:
        guard let pid else { continue }
        events.append(
          instant("kill: \(change.reason?.rawValue ?? "?")", pid: pid, tid: 1, ts: ts, args: ["pid": change.pid ?? 0]))
      case .appEvent:
        guard let pid, let name = change.name else { continue }
        var args: [String: Any] = ["launch": change.launch ?? 0]
        if let level = change.level { args["level"] = level.name }
        events.append(instant(name, pid: pid, tid: 1, ts: ts, args: args))
      case .acknowledgement:
        guard let pid, let name = change.name else { continue }
        events.append(instant("acknowledged \(name)", pid: pid, tid: 1, ts: ts, args: ["launch": change.launch ?? 0]))
      case .diagnostic:
        guard let pid else { continue }
        events.append(instant("diagnostic: \(change.name ?? "?")", pid: pid, tid: 1, ts: ts, args: [:]))
      case .watchdogHeld:
        guard let pid, let name = change.name else { continue }
        let text = WatchdogHeldText.text(event: name, tracer: change.tracerPid)
        events.append(instant(text, pid: pid, tid: 1, ts: ts, args: [:]))
      case .verdict:
        guard let pid else { continue }
        events.append(
          instant(
            "\(change.name ?? "verdict"): \(change.verdict ?? "?")", pid: pid, tid: 1, ts: ts,
            args: ["launch": change.launch ?? 0]))
      case .exit:
        guard let pid, let record = change.record else { continue }
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(record))
        events.append(
          instant("exit: \(record.cause.reason.rawValue)", pid: pid, tid: 1, ts: ts, args: ["record": object]))
      case .device:
        events.append(
          instant("charging \(change.charging == true ? "on" : "off")", pid: device, tid: 1, ts: ts, args: [:]))
      case .sockets:
        guard let pid else { continue }
        var args: [String: Any] = ["sockets": (change.sockets ?? []).map(\.summary)]
        if let problem = change.problem { args["problem"] = problem }
        events.append(
          instant("sockets defuncted: \(change.sockets?.count ?? 0)", pid: pid, tid: 1, ts: ts, args: args))
      }
    }
    for app in Array(current.keys) { closeState(app, at: end) }
    for step in run.steps where !step.location.hasPrefix("expect.") && step.location != "watch" {
      var args: [String: Any] = ["outcome": step.outcome.rawValue]
      if let message = step.message { args["message"] = message }
      if let evidence = step.evidence { args["evidence"] = evidence }
      events.append([
        "ph": "X", "name": "\(step.location) \(step.title)", "cat": "lab", "pid": devicePid, "tid": 1,
        "ts": step.startSeconds * 1e6, "dur": step.durationSeconds * 1e6, "args": args,
      ])
    }
    for action in run.chaos?.actions ?? [] {
      events.append(
        instant(
          "chaos: \(action.planned.title)", pid: devicePid, tid: 1, ts: action.atSeconds * 1e6,
          args: ["outcome": action.outcome]))
    }
    let trace: [String: Any] = [
      "traceEvents": events, "displayTimeUnit": "ms",
      "otherData": [
        "scenario": run.scenario, "started": run.started, "passed": run.passed,
        "chaosSeed": run.chaos.map { String($0.seed) } ?? "",
      ],
    ]
    return try JSONSerialization.data(withJSONObject: trace, options: [.sortedKeys])
  }

  private static func meta(_ kind: String, pid: Int, tid: Int, name: String? = nil, sortIndex: Int? = nil)
    -> [String: Any]
  {
    var args: [String: Any] = [:]
    if let name { args["name"] = name }
    if let sortIndex { args["sort_index"] = sortIndex }
    return ["ph": "M", "name": kind, "pid": pid, "tid": tid, "args": args]
  }

  private static func instant(_ name: String, pid: Int, tid: Int, ts: Double, args: [String: Any], scope: String = "t")
    -> [String: Any]
  {
    ["ph": "i", "s": scope, "name": name, "pid": pid, "tid": tid, "ts": ts, "args": args]
  }
}

extension PressureLevel {
  /// 0 (normal) to 3 (critical), for counters and colours.
  var rank: Int { PressureLevel.allCases.firstIndex(of: self) ?? 0 }
}
