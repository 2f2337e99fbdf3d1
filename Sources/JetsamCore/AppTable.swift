/// Every tracked app by name, with the indexes the policy asks of them at every event kept as apps change.
///
/// Every change to an app goes through a subscript here, which re-files the app when its place changes: its kill
/// order among running apps (band, time in band, spawn, name), whether a kill was asked for it, whether it has a
/// process. So choosing a victim reads the first entry of an ordered index, a snapshot walks it, and deadlines
/// visit only the apps with a process, where each used to scan (and sort) every app known.
struct AppTable: Sendable {
  typealias Index = Dictionary<String, TrackedApp>.Index

  private var byName: [String: TrackedApp] = [:]
  /// Running apps with a process, in kill order: what a jetsam snapshot lists.
  private(set) var running = SortedKeySet<VictimKey>()
  /// The running apps with no kill asked for them, in kill order: jetsam's candidates.
  private(set) var candidates = SortedKeySet<VictimKey>()
  /// Apps with a process: the only ones that can have a deadline.
  private(set) var withProcess: Set<String> = []

  /// Where an app is filed, computed from the app alone.
  private struct Filing: Equatable {
    var key: VictimKey
    var hasProcess: Bool
    var running: Bool
    var candidate: Bool

    init?(_ app: TrackedApp?) {
      guard let app else { return nil }
      let process = app.process
      hasProcess = process != nil
      running = hasProcess && app.state.isRunning
      candidate = running && process?.requestedKill == nil
      key = VictimKey(band: app.band, bandEnteredAt: app.bandEnteredAt, spawnedAt: process?.spawnedAt, name: app.name)
    }
  }

  subscript(name: String) -> TrackedApp? {
    get { byName[name] }
    _modify {
      let before = Filing(byName[name])
      // Deferred so the app is re-filed even if the caller's access ends early.
      defer { refile(name, from: before, to: Filing(byName[name])) }
      yield &byName[name]
    }
  }

  /// The app at `index` of ``values``, changed in place.
  subscript(at index: Index) -> TrackedApp {
    get { byName.values[index] }
    _modify {
      let name = byName.keys[index]
      let before = Filing(byName.values[index])
      defer { refile(name, from: before, to: Filing(byName.values[index])) }
      yield &byName.values[index]
    }
  }

  var keys: Dictionary<String, TrackedApp>.Keys { byName.keys }
  var values: Dictionary<String, TrackedApp>.Values { byName.values }
  func index(forKey name: String) -> Index? { byName.index(forKey: name) }

  private mutating func refile(_ name: String, from before: Filing?, to after: Filing?) {
    guard before != after else { return }
    if before?.key != after?.key || before?.running != after?.running {
      if before?.running == true { running.remove(before!.key) }
      if after?.running == true { running.insert(after!.key) }
    }
    if before?.key != after?.key || before?.candidate != after?.candidate {
      if before?.candidate == true { candidates.remove(before!.key) }
      if after?.candidate == true { candidates.insert(after!.key) }
    }
    if before?.hasProcess != after?.hasProcess {
      if after?.hasProcess == true { withProcess.insert(name) } else { withProcess.remove(name) }
    }
  }
}
