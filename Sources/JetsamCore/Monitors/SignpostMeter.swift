import JetsamValues
import JetsamWire

/// Signpost intervals (MetricKit's `MXSignpostMetric`), a machine of its own: the intervals under way on each app's
/// process, timed from the `signpost` lines' own instants, and the counter readings (`readSignpostCounters`,
/// answered by `signpostCountersRead`) that give each ended interval its cost.
///
/// It owns the intervals; the figures they come to (counts, durations, costs) are the launch's metrics, which it
/// hands out as ``Ended`` and ``Costed`` values for the records to count.
struct SignpostMeter: Sendable {
  /// An interval ended: its name and duration, and the reading asked for its end counters, if any.
  struct Ended: Equatable {
    var name: String
    var seconds: Double
    var reading: Int?
  }

  /// An ended interval whose both readings are in.
  struct Costed: Equatable {
    var name: String
    var begin: SignpostCounters
    var end: SignpostCounters
  }

  /// A process's intervals: they belong to it and go with it.
  private struct Metered: Sendable {
    var pid: Int32
    var intervals = SignpostIntervals()
  }

  private var processes: [String: Metered] = [:]

  /// Opens an interval `signpost` on app `name`'s process `pid` at `at`, and returns the reading asked for its begin
  /// counters (nil when too many are in flight: its cost is then not counted).
  mutating func begin(_ name: String, pid: Int32, _ signpost: String, at: Instant) -> Int? {
    if processes[name]?.pid != pid { processes[name] = Metered(pid: pid) }
    let reading = processes[name]?.intervals.nextReading()
    processes[name]?.intervals.begin(signpost, at: at, reading: reading)
    return reading
  }

  /// Ends the latest open interval `signpost` of the process, if one is open. `counted` is false when the name can
  /// no longer be counted (the cap on names filled up since its begin): the interval is then dropped, uncounted.
  mutating func end(_ name: String, pid: Int32, _ signpost: String, counted: Bool, at: Instant) -> Ended? {
    guard let metered = processes[name], metered.pid == pid, metered.intervals.isOpen(signpost) else { return nil }
    // No reading for an end whose begin was not read, nor for one whose name is not counted.
    let costed = counted && metered.intervals.open.last { $0.name == signpost }?.begin != .failed
    let reading = costed ? processes[name]?.intervals.nextReading() : nil
    guard let interval = processes[name]?.intervals.end(signpost, reading: reading), counted else { return nil }
    return Ended(name: signpost, seconds: at.seconds(since: interval.beganAt), reading: reading)
  }

  /// The counters of reading `reading` (nil: unreadable): the interval whose both readings are now in, if that
  /// completes one. A reading for another process, or for an interval dropped since, completes none.
  mutating func read(_ name: String, pid: Int32, reading: Int, counters: SignpostCounters?) -> Costed? {
    guard processes[name]?.pid == pid,
      let interval = processes[name]?.intervals.record(reading, counters.map { .read($0) } ?? .failed),
      case .read(let begin) = interval.begin, case .read(let end) = interval.end
    else { return nil }
    return Costed(name: interval.name, begin: begin, end: end)
  }

  /// App `name`'s process ended: its intervals go with it.
  mutating func forget(_ name: String) { processes[name] = nil }
}
