import JetsamValues

/// The signpost intervals under way on a running process, and the intervals ended whose counters are still being
/// read. Not saved, like ``LaunchTimers``: an interval a daemon restart cut in two is dropped.
///
/// Intervals of one name nest: an `end` closes the latest open `begin` of its name (as trace viewers pair them).
/// Both lists are bounded (``maxOpen``): an app that begins without ending loses its oldest open interval, not
/// jetsamd's memory. So are the readings asked of the shell and not yet answered (``maxInFlight``): an app that
/// sends signposts faster than its counters can be read gets durations without costs, rather than a queue of
/// `/proc` scans.
struct SignpostIntervals: Sendable {
  /// A reading of the counters asked for (by its number) and its outcome.
  enum Reading: Sendable, Equatable {
    case pending(Int)
    case read(SignpostCounters)
    /// The counters could not be read (the interval's cost is not counted).
    case failed
  }

  struct Open: Sendable {
    var name: String
    var beganAt: Instant
    var begin: Reading
  }

  /// An ended interval (its duration counted) whose cost waits for its readings.
  struct Closing: Sendable {
    var name: String
    var begin: Reading
    var end: Reading
  }

  /// At most this many open intervals, and as many ended ones awaiting their counters, per process.
  static let maxOpen = 16
  /// At most this many readings asked for and not yet answered, per process.
  static let maxInFlight = 16

  var open: [Open] = []
  var closing: [Closing] = []
  /// The readings asked for and not answered yet (those of intervals dropped since too: the shell answers each).
  private(set) var inFlight: Set<Int> = []
  private var lastReading = 0

  /// A new reading's number (unique within the process), counted in flight; nil when ``maxInFlight`` are.
  mutating func nextReading() -> Int? {
    guard inFlight.count < Self.maxInFlight else { return nil }
    lastReading += 1
    inFlight.insert(lastReading)
    return lastReading
  }

  /// Whether an interval of `name` is open (an `end` has one to close).
  func isOpen(_ name: String) -> Bool { open.contains { $0.name == name } }

  /// Opens an interval whose begin counters are reading `reading` (nil: not read, its cost not counted).
  mutating func begin(_ name: String, at: Instant, reading: Int?) {
    open.append(Open(name: name, beganAt: at, begin: reading.map { .pending($0) } ?? .failed))
    if open.count > Self.maxOpen { open.removeFirst() }
  }

  /// Ends the latest open interval of `name`, its end counters being reading `reading` (nil: not read); nil if
  /// none is open. An interval whose cost cannot be counted is not kept waiting.
  mutating func end(_ name: String, reading: Int?) -> Open? {
    guard let index = open.lastIndex(where: { $0.name == name }) else { return nil }
    let interval = open.remove(at: index)
    guard let reading, interval.begin != .failed else { return interval }
    closing.append(Closing(name: name, begin: interval.begin, end: .pending(reading)))
    if closing.count > Self.maxOpen { closing.removeFirst() }
    return interval
  }

  /// Records reading `number`'s outcome; returns the interval it completed (both ends known), removed.
  mutating func record(_ number: Int, _ outcome: Reading) -> Closing? {
    guard inFlight.remove(number) != nil else { return nil }
    if let index = open.firstIndex(where: { $0.begin == .pending(number) }) {
      open[index].begin = outcome
      return nil
    }
    guard let index = closing.firstIndex(where: { $0.begin == .pending(number) || $0.end == .pending(number) })
    else { return nil }
    if closing[index].begin == .pending(number) { closing[index].begin = outcome } else { closing[index].end = outcome }
    if case .pending = closing[index].begin { return nil }
    if case .pending = closing[index].end { return nil }
    return closing.remove(at: index)
  }
}
