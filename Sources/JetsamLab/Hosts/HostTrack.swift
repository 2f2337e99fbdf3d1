import Foundation
import JetsamPlatform
import JetsamProtocol

/// A host of a lab run across hosts, as the reports state it: where it was, how its clock stood to the lab's, and
/// why it dropped out, if it did. Its apps are the report's `NAME/app` tracks.
public struct HostTrack: Codable, Sendable {
  public var name: String
  /// `ssh://user@host:port/socket`.
  public var spec: String
  /// Its clock against the lab's; nil when it could not be reached.
  public var clock: HostClock?
  /// Why it is out of the run, if it is.
  public var problem: String?
}

extension LabRun {
  /// A run across hosts that began at `started` (`origin` on the lab's clock) and ends now: each host's changes moved
  /// onto the lab's clock by its offset and merged in time order, its apps renamed `HOST/app` (its track), so that
  /// every report draws one timeline with each host's apps apart.
  init(
    scenario: String, file: String, started: Date, origin: Int64, steps: [StepResult],
    hosts: [(track: HostTrack, timeline: Timeline?)], resources: RunResources?
  ) {
    var changes: [LiveChange] = []
    var initialApps: [AppInfo] = []
    var ram: Int64 = 0
    for (track, timeline) in hosts {
      guard let timeline else { continue }
      let offset = track.clock?.offsetNanoseconds ?? 0
      func named(_ app: String) -> String { track.name + "/" + app }
      for var change in timeline.all {
        change.monotonicNanoseconds -= offset
        change.app = change.app.map(named)
        change.memory = change.memory.map { memory in
          Dictionary(uniqueKeysWithValues: memory.map { (named($0.key), $0.value) })
        }
        if let app = change.record?.app { change.record?.app = named(app) }
        changes.append(change)
      }
      initialApps += timeline.snapshot.apps.map { app in
        var app = app
        app.name = named(app.name)
        return app
      }
      ram = max(ram, timeline.snapshot.pressure.ramBytes)
    }
    // Stable: each host's own order is kept among changes at the same instant.
    changes = changes.enumerated().sorted {
      ($0.element.monotonicNanoseconds, $0.offset) < ($1.element.monotonicNanoseconds, $1.offset)
    }.map(\.element)
    self.init(
      scenario: scenario, file: file,
      started: started.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
      originNanoseconds: origin, durationSeconds: Double(MonotonicClock.now().nanoseconds - origin) / 1e9,
      ramBytes: ram, steps: steps, exits: changes.compactMap { $0.kind == .exit ? $0.record : nil },
      timeline: changes, initialApps: initialApps, chaos: nil, resources: resources, metrics: nil,
      hosts: hosts.map(\.track))
  }
}
