import Foundation
import JetsamCore
import JetsamProtocol

/// Whether an expectation holds over the changes so far, and what decided it.
struct ExpectationCheck {
  var holds: Bool
  /// What decided it (a matching record, the verdict) or, when it does not hold, what was seen instead.
  var detail: String
  /// Exit records it matched (`app#launch`), which are then expected ones.
  var matchedExits: [String] = []

  static func evaluate(_ expectation: Expectation, changes: [LiveChange], snapshot: WatchSnapshot) -> ExpectationCheck {
    let exits = changes.compactMap { $0.kind == .exit ? $0.record : nil }
    switch expectation {
    case .exit(let pattern):
      if let record = exits.first(where: pattern.matches) {
        return ExpectationCheck(holds: true, detail: record.labSummary, matchedExits: [record.labKey])
      }
      return ExpectationCheck(
        holds: false, detail: "exits seen: " + exitList(exits) + memoryNote(changes, snapshot: snapshot))
    case .exits(let patterns):
      var matched: [ExitRecord] = []
      var remaining = exits[...]
      for pattern in patterns {
        guard let index = remaining.firstIndex(where: pattern.matches) else {
          return ExpectationCheck(
            holds: false,
            detail: "no exit of \(pattern) after \(matched.last?.labSummary ?? "the start"); exits seen: "
              + exitList(exits) + memoryNote(changes, snapshot: snapshot))
        }
        matched.append(remaining[index])
        remaining = remaining[(index + 1)...]
      }
      return ExpectationCheck(
        holds: true, detail: matched.map(\.labSummary).joined(separator: "; "), matchedExits: matched.map(\.labKey))
    case .noExit(let app):
      if let record = exits.first(where: { $0.app == app }) {
        return ExpectationCheck(holds: false, detail: "it exited: \(record.labSummary)")
      }
      return ExpectationCheck(holds: true, detail: "no exit of \(app)")
    case .verdict(let app, let kind, let verdict):
      let latest = changes.last { $0.kind == .verdict && $0.app == app && $0.name == kind.rawValue }
      guard let latest, let seen = latest.verdict else {
        return ExpectationCheck(holds: false, detail: "no \(kind.rawValue) of \(app) was judged")
      }
      return ExpectationCheck(
        holds: seen == verdict, detail: "\(kind.rawValue) of \(app) launch \(latest.launch ?? 0): \(seen)")
    case .state(let app, let state):
      let latest =
        changes.last { $0.kind == .state && $0.app == app }?.to
        ?? snapshot.apps.first { $0.status.name == app }?.status.state
      guard let latest else { return ExpectationCheck(holds: false, detail: "\(app) was never launched") }
      return ExpectationCheck(
        holds: state.holds(for: latest), detail: "\(app) is \(latest.rawValue)")
    case .signpost(let app, let name, let phase):
      let seen = changes.filter { $0.kind == .signpost && $0.app == app }
      if seen.contains(where: { $0.name == name && (phase == nil || $0.phase?.rawValue == phase) }) {
        return ExpectationCheck(holds: true, detail: "signpost \(name) of \(app)")
      }
      let names = seen.map { "\($0.name ?? "?") \($0.phase?.rawValue ?? "?")" }
      return ExpectationCheck(
        holds: false, detail: "signposts of \(app): " + (names.isEmpty ? "none" : names.joined(separator: ", ")))
    case .event(let app, let name):
      let seen = changes.filter { $0.kind == .appEvent && $0.app == app }
      if seen.contains(where: { $0.name == name }) {
        return ExpectationCheck(holds: true, detail: "\(name) delivered to \(app)")
      }
      let names = seen.compactMap(\.name)
      return ExpectationCheck(
        holds: false, detail: "events delivered to \(app): " + (names.isEmpty ? "none" : names.joined(separator: ", ")))
    case .acknowledged(let app, let name):
      let seen = changes.filter { $0.kind == .acknowledgement && $0.app == app }
      if seen.contains(where: { $0.name == name }) {
        return ExpectationCheck(holds: true, detail: "\(name) acknowledged for \(app)")
      }
      let names = seen.compactMap(\.name)
      return ExpectationCheck(
        holds: false,
        detail: "events acknowledged for \(app): " + (names.isEmpty ? "none" : names.joined(separator: ", ")))
    case .memory(let app, let bytes):
      // The latest sample lists every running app: one it leaves out is not running (any more).
      let latest =
        changes.last { $0.kind == .memory && $0.memory != nil }.map { $0.memory?[app] }
        ?? snapshot.apps.first { $0.status.name == app }?.measured.memoryBytes
      guard let latest else { return ExpectationCheck(holds: false, detail: "\(app) is not running") }
      return ExpectationCheck(holds: latest >= bytes, detail: "\(app) holds \(ByteSize.format(latest))")
    }
  }

  static func exitList(_ exits: [ExitRecord]) -> String {
    exits.isEmpty ? "none" : exits.map(\.labSummary).joined(separator: "; ")
  }

  /// How close memory came, for an exit that did not come: `; memory last seen: urgent, 412M available of 2G
  /// (camera 450M, browser 302M, maps 251M)`: the level and the reading jetsamd last pushed, and the largest apps.
  static func memoryNote(_ changes: [LiveChange], snapshot: WatchSnapshot) -> String {
    let level = changes.last { $0.kind == .pressure }?.level ?? snapshot.pressure.level
    let reading = changes.last { ($0.kind == .memory || $0.kind == .pressure) && $0.availableBytes != nil }
    let available = reading?.availableBytes ?? snapshot.pressure.availableBytes
    let memory =
      changes.last { $0.kind == .memory && $0.memory != nil }?.memory
      ?? Dictionary(snapshot.apps.map { ($0.status.name, $0.measured.memoryBytes) }, uniquingKeysWith: max)
    let largest = memory.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }.prefix(3)
    let apps = largest.map { "\($0.key) \(ByteSize.format($0.value))" }.joined(separator: ", ")
    return "; memory last seen: \(level), \(ByteSize.format(available)) available of "
      + ByteSize.format(snapshot.pressure.ramBytes) + (apps.isEmpty ? "" : " (\(apps))")
  }
}

extension ExitPattern {
  func matches(_ record: ExitRecord) -> Bool {
    record.app == app && (reason == nil || record.cause.reason == reason)
      && (state == nil || record.lifecycle.state == state) && (launch == nil || record.launch == launch)
      && (lockedFile == nil || record.evidence.lockedFiles?.contains { $0.path == lockedFile } == true)
  }
}

extension ExitRecord {
  /// `mail launch 2: memoryPressure in suspended`.
  var labSummary: String {
    let held = evidence.lockedFiles.map { " holding \($0.map(\.path).joined(separator: ", "))" } ?? ""
    return "\(app) launch \(launch): \(cause.reason.rawValue) in \(lifecycle.state)\(held)"
  }
  /// One exit of one launch.
  var labKey: String { "\(app)#\(launch)" }
}
