import Foundation
import JetsamCore
import JetsamProtocol

/// What `jetsamctl top` shows, kept up to date from `watch`'s changes: no request per app, no polling.
struct TopModel {
  /// One app's row.
  struct Row {
    var name: String
    var pid: Int32?
    var state: LifecycleState
    var band: Band
    var memoryBytes: Int64
    var memoryLimitBytes: Int64?
    /// When it entered its state, on CLOCK_MONOTONIC (nanoseconds).
    var stateSince: Int64
    var launch: Int
  }

  /// The columns `s` cycles through.
  enum SortKey: String, CaseIterable {
    case memory, name, state, time, launches
  }

  /// The exits kept for the bottom of the screen.
  static let exitsShown = 8

  var rows: [String: Row] = [:]
  var level = PressureLevel.normal
  var availableBytes: Int64 = 0
  var ramBytes: Int64 = 0
  var charging = false
  /// Newest first.
  var exits: [ExitRecord] = []
  var sort = SortKey.memory
  /// Largest first for memory, time and launches, A to Z for names and states; `r` turns it around.
  var reversed = false
  var filter = ""

  init(snapshot: WatchSnapshot, exits: [ExitRecord]) {
    for app in snapshot.apps {
      rows[app.status.name] = Row(
        name: app.status.name, pid: app.status.pid, state: app.status.state, band: app.status.band,
        memoryBytes: app.measured.memoryBytes,
        memoryLimitBytes: app.measured.memoryLimitBytes,
        stateSince: snapshot.monotonicNanoseconds - Int64(app.measured.stateSeconds * 1e9), launch: app.status.launch)
    }
    level = snapshot.pressure.level
    availableBytes = snapshot.pressure.availableBytes
    ramBytes = snapshot.pressure.ramBytes
    charging = snapshot.device.charging
    self.exits = Array(exits.prefix(Self.exitsShown))
  }

  /// Takes in one change pushed by jetsamd.
  mutating func apply(_ change: LiveChange) {
    switch change.kind {
    case .state:
      guard let app = change.app, let to = change.to else { return }
      var row =
        rows[app]
        ?? Row(
          name: app, pid: nil, state: to, band: change.band ?? .foreground, memoryBytes: 0, memoryLimitBytes: nil,
          stateSince: change.monotonicNanoseconds, launch: change.launch ?? 0)
      row.state = to
      if let band = change.band { row.band = band }
      if let launch = change.launch { row.launch = launch }
      if let pid = change.pid { row.pid = pid }
      if !to.isRunning {
        row.pid = nil
        row.memoryBytes = 0
      }
      row.stateSince = change.monotonicNanoseconds
      rows[app] = row
    case .kill:
      if let app = change.app, let pid = change.pid { rows[app]?.pid = pid }
    case .pressure:
      if let level = change.level { self.level = level }
      if let available = change.availableBytes { availableBytes = available }
    case .memory:
      if let available = change.availableBytes { availableBytes = available }
      for (app, bytes) in change.memory ?? [:] { rows[app]?.memoryBytes = bytes }
    case .exit:
      guard let record = change.record else { return }
      exits.insert(record, at: 0)
      exits = Array(exits.prefix(Self.exitsShown))
      rows[record.app]?.memoryBytes = 0
    case .device:
      if let charging = change.charging { self.charging = charging }
    case .appEvent, .signpost, .acknowledgement, .diagnostic, .verdict, .watchdogHeld, .sockets:
      break
    }
  }

  /// The rows that pass the filter, in the chosen order.
  var shownRows: [Row] {
    let kept =
      filter.isEmpty ? Array(rows.values) : rows.values.filter { $0.name.localizedCaseInsensitiveContains(filter) }
    let ordered = kept.sorted { a, b in
      // Ties fall back to the name, so that rows do not jump about between frames.
      switch sort {
      case .memory: a.memoryBytes != b.memoryBytes ? a.memoryBytes > b.memoryBytes : a.name < b.name
      case .name: a.name < b.name
      case .state: a.state.rawValue != b.state.rawValue ? a.state.rawValue < b.state.rawValue : a.name < b.name
      case .time: a.stateSince != b.stateSince ? a.stateSince < b.stateSince : a.name < b.name
      case .launches: a.launch != b.launch ? a.launch > b.launch : a.name < b.name
      }
    }
    return reversed ? ordered.reversed() : ordered
  }

  mutating func nextSort() {
    sort = SortKey.allCases[(SortKey.allCases.firstIndex(of: sort)! + 1) % SortKey.allCases.count]
    reversed = false
  }
}
