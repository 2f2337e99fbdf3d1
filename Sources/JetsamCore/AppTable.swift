import JetsamValues

/// Every tracked app by name, with the indexes the policy asks of them at every event kept as apps change.
///
/// Every change to an app goes through a subscript here, which re-files the app when its place changes: its kill
/// order among running apps (band, time in band, spawn, name), whether a kill was asked for it, whether it has a
/// process. So choosing a victim reads the first entry of an ordered index, a snapshot walks it, and ticks visit
/// only the apps with a process, where each used to scan (and sort) every app known. Each app's earliest deadline
/// is filed too, once per event for the apps it changed (``fileDeadlines(_:)``).
struct AppTable: Sendable {
  typealias Index = Dictionary<String, TrackedApp>.Index

  private var byName: [String: TrackedApp] = [:]
  /// Running apps with a process, in kill order: what a jetsam snapshot lists.
  private(set) var running = SortedKeySet<VictimKey>()
  /// The running apps with no kill asked for them, in kill order: jetsam's candidates.
  private(set) var candidates = SortedKeySet<VictimKey>()
  /// Apps with a process: the only ones that can have a deadline.
  private(set) var withProcess: Set<String> = []
  /// How many apps are in each state (states with none left out): the status line's figures, asked after every
  /// turn of the shell's loop.
  private(set) var countsByState: [LifecycleState: Int] = [:]
  /// Each app's earliest deadline, soonest first, as filed by ``fileDeadlines(_:)`` at the end of each event.
  private(set) var deadlines = SortedKeySet<AppDeadline>()
  /// The deadline each app is filed under in ``deadlines``.
  private var filedDeadline: [String: Instant] = [:]
  /// Apps changed since their deadlines were last filed (a name may repeat, though rarely twice in a row).
  private var deadlinesStale: [String] = []
  /// What the filed deadlines were worked out with.
  private var deadlineContext: DeadlineContext?

  /// Where an app is filed, computed from the app alone. Plain values, no name: taken twice for every change to an
  /// app (most change none of it), so it must cost no retain; the name is the subscript's.
  private struct Filing: Equatable {
    var state: LifecycleState
    var band: Band
    var bandEnteredAt: Instant
    var spawnedAt: Instant?
    var hasProcess: Bool
    var running: Bool
    var candidate: Bool

    init(_ app: borrowing TrackedApp) {
      state = app.state
      band = app.band
      bandEnteredAt = app.bandEnteredAt
      spawnedAt = app.process?.spawnedAt
      hasProcess = app.process != nil
      running = hasProcess && app.state.isRunning
      candidate = running && app.process?.requestedKill == nil
    }

    func key(_ name: String) -> VictimKey {
      VictimKey(band: band, bandEnteredAt: bandEnteredAt, spawnedAt: spawnedAt, name: name)
    }

    /// Whether the place in kill order differs (the name being the same).
    func sameOrder(as other: Filing) -> Bool {
      band == other.band && bandEnteredAt == other.bandEnteredAt && spawnedAt == other.spawnedAt
    }
  }

  subscript(name: String) -> TrackedApp? {
    get { byName[name] }
    _modify {
      let before = filing(name)
      // Deferred so the app is re-filed even if the caller's access ends early.
      defer {
        refile(name, from: before, to: filing(name))
        markDeadlineStale(name)
      }
      yield &byName[name]
    }
  }

  /// The app at `index` of ``values``, changed in place.
  subscript(at index: Index) -> TrackedApp {
    get { byName.values[index] }
    _modify {
      let name = byName.keys[index]
      let before = Filing(byName.values[index])
      defer {
        refile(name, from: before, to: Filing(byName.values[index]))
        markDeadlineStale(name)
      }
      yield &byName.values[index]
    }
  }

  /// Calls `body` with every app that has a process, in no particular order, reading each in place.
  ///
  /// When most apps have a process (a daemon's usual day) a pass over every app costs less than a lookup of each
  /// by name; when few do (a large population, most of it not running) the lookups cost far less than the pass.
  func forEachWithProcess(_ body: (borrowing TrackedApp) -> Void) {
    if withProcess.count * 4 >= byName.count {
      for index in byName.values.indices where byName.values[index].process != nil { body(byName.values[index]) }
    } else {
      for name in withProcess {
        guard let index = byName.index(forKey: name) else { continue }
        body(byName.values[index])
      }
    }
  }

  /// Files again the deadline of every app changed since the last call, so that ``deadlines`` is right: the policy
  /// calls it at the end of each event. Working out an app's deadline visits its acknowledgements and tasks, so it
  /// is done once per changed app and event rather than on every change (an event changes one app many times), and
  /// the next deadline is the index's first entry rather than a pass over every app after every turn of the loop.
  mutating func fileDeadlines(_ context: DeadlineContext) {
    if context != deadlineContext {
      // Every app's deadline may depend on it; only apps with a process have one.
      deadlineContext = context
      deadlinesStale.append(contentsOf: withProcess)
    }
    guard !deadlinesStale.isEmpty else { return }
    for name in deadlinesStale {
      let now = byName.index(forKey: name).flatMap { byName.values[$0].earliestDeadline(context) }
      let filed = filedDeadline[name]
      guard now != filed else { continue }
      if let filed { deadlines.remove(AppDeadline(at: filed, name: name)) }
      if let now { deadlines.insert(AppDeadline(at: now, name: name)) }
      filedDeadline[name] = now
    }
    deadlinesStale.removeAll(keepingCapacity: deadlinesStale.count <= 1024)
  }

  private mutating func markDeadlineStale(_ name: String) {
    if deadlinesStale.last != name { deadlinesStale.append(name) }
  }

  var keys: Dictionary<String, TrackedApp>.Keys { byName.keys }
  var values: Dictionary<String, TrackedApp>.Values { byName.values }
  func index(forKey name: String) -> Index? { byName.index(forKey: name) }

  /// Where app `name` is filed now, read in place (a copy of the app would cost a retain of each of its fields).
  private func filing(_ name: String) -> Filing? {
    guard let index = byName.index(forKey: name) else { return nil }
    return Filing(byName.values[index])
  }

  private mutating func refile(_ name: String, from before: Filing?, to after: Filing?) {
    guard before != after else { return }
    let moved = !(before.flatMap { old in after.map { old.sameOrder(as: $0) } } ?? false)
    if moved || before?.running != after?.running {
      if let before, before.running { running.remove(before.key(name)) }
      if let after, after.running { running.insert(after.key(name)) }
    }
    if moved || before?.candidate != after?.candidate {
      if let before, before.candidate { candidates.remove(before.key(name)) }
      if let after, after.candidate { candidates.insert(after.key(name)) }
    }
    if before?.state != after?.state {
      if let before { count(before.state, by: -1) }
      if let after { count(after.state, by: 1) }
    }
    if before?.hasProcess != after?.hasProcess {
      if after?.hasProcess == true { withProcess.insert(name) } else { withProcess.remove(name) }
    }
  }

  private mutating func count(_ state: LifecycleState, by change: Int) {
    let count = countsByState[state, default: 0] + change
    countsByState[state] = count == 0 ? nil : count
  }
}
