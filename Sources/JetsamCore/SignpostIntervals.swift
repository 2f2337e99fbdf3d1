import JetsamValues

/// The signpost intervals under way on a running process, and the intervals ended whose counters are still being
/// read. Not saved, like ``LaunchTimers``: an interval a daemon restart cut in two is dropped.
///
/// Intervals of one name nest: an `end` closes the latest open `begin` of its name (as trace viewers pair them).
/// Both lists are bounded (``maxOpen``): an app that begins without ending loses its oldest open interval, not
/// jetsamd's memory.
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

  var open: [Open] = []
  var closing: [Closing] = []
  private var lastReading = 0

  /// A new reading's number (unique within the process).
  mutating func nextReading() -> Int {
    lastReading += 1
    return lastReading
  }

  /// Opens an interval whose begin counters are reading `reading`.
  mutating func begin(_ name: String, at: Instant, reading: Int) {
    open.append(Open(name: name, beganAt: at, begin: .pending(reading)))
    if open.count > Self.maxOpen { open.removeFirst() }
  }

  /// Ends the latest open interval of `name`, its end counters being reading `reading`; nil if none is open.
  mutating func end(_ name: String, reading: Int) -> Open? {
    guard let index = open.lastIndex(where: { $0.name == name }) else { return nil }
    let interval = open.remove(at: index)
    closing.append(Closing(name: name, begin: interval.begin, end: .pending(reading)))
    if closing.count > Self.maxOpen { closing.removeFirst() }
    return interval
  }

  /// Records reading `number`'s outcome; returns the interval it completed (both ends known), removed.
  mutating func record(_ number: Int, _ outcome: Reading) -> Closing? {
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
