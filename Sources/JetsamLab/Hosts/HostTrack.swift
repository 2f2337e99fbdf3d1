import Foundation
import JetsamPlatform
import JetsamProtocol

/// A host of a lab run across hosts, as the reports state it: where it was, how its clock stood to the lab's, its
/// RAM, and why it dropped out, if it did. Its apps are the report's `NAME/app` lanes, under its own device track.
public struct HostTrack: Codable, Sendable {
  public var name: String
  /// `ssh://user@host:port/socket`.
  public var spec: String
  /// Its clock against the lab's; nil when it could not be reached.
  public var clock: HostClock?
  /// Its jetsamd's RAM (emulated or the machine's), which its memory is drawn against; nil when it could not be
  /// reached.
  public var ramBytes: Int64? = nil
  /// Why it is out of the run, if it is.
  public var problem: String?
}

/// What one host of a run across hosts saw, on its own clock and under its apps' own names: the apps when its watch
/// began, every change it pushed, and its apps' payloads at the end (nil when it did not give them).
struct HostRecording {
  var track: HostTrack
  var apps: [AppInfo] = []
  var changes: [LiveChange] = []
  var metrics: [MetricPayload]? = nil
}

extension LabRun {
  /// A run across hosts that began at `started` (`origin` on the lab's clock) and ends now: each host's changes moved
  /// onto the lab's clock by its offset and merged in time order (each remembered as its host's, in `changeHosts`),
  /// its apps renamed `HOST/app` (in the changes, the records and the payloads), so that every report draws one
  /// timeline with a device track per host and each host's apps under it.
  init(
    scenario: String, file: String, started: Date, origin: Int64, steps: [StepResult], hosts: [HostRecording],
    resources: RunResources?
  ) {
    var changes: [(change: LiveChange, host: String)] = []
    var initialApps: [AppInfo] = []
    var metrics: [MetricPayload]?
    for host in hosts {
      let offset = host.track.clock?.offsetNanoseconds ?? 0
      let name = host.track.name
      func named(_ app: String) -> String { name + "/" + app }
      for var change in host.changes {
        change.monotonicNanoseconds -= offset
        change.app = change.app.map(named)
        change.memory = change.memory.map { memory in
          Dictionary(uniqueKeysWithValues: memory.map { (named($0.key), $0.value) })
        }
        if let app = change.record?.app { change.record?.app = named(app) }
        changes.append((change, name))
      }
      initialApps += host.apps.map { app in
        var app = app
        app.status.name = named(app.status.name)
        return app
      }
      if let payloads = host.metrics {
        metrics =
          (metrics ?? [])
          + payloads.map { payload in
            var payload = payload
            payload.metaData.bundleIdentifier = named(payload.metaData.bundleIdentifier)
            return payload
          }
      }
    }
    // Stable: each host's own order is kept among changes at the same instant.
    changes = changes.enumerated().sorted {
      ($0.element.change.monotonicNanoseconds, $0.offset) < ($1.element.change.monotonicNanoseconds, $1.offset)
    }.map(\.element)
    self.init(
      scenario: scenario, file: file,
      started: started.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
      originNanoseconds: origin, durationSeconds: Double(MonotonicClock.now().nanoseconds - origin) / 1e9,
      ramBytes: hosts.reduce(0) { $0 + ($1.track.ramBytes ?? 0) }, steps: steps,
      exits: changes.compactMap { $0.change.kind == .exit ? $0.change.record : nil }, timeline: changes.map(\.change),
      initialApps: initialApps, chaos: nil, resources: resources, metrics: metrics, hosts: hosts.map(\.track),
      changeHosts: changes.map(\.host))
  }
}
