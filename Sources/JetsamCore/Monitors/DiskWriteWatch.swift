import JetsamValues

/// One app's disk-write watch: its limit and readings of its written bytes, enough to cover the trailing window.
///
/// A reading is cumulative since the launch, so the watch starts from (spawn, 0): what the app writes before the
/// first reading counts. Where the counter is a sum over the app's processes (`/proc/PID/io`), it can fall: a child
/// that exited is out of the sum until its parent reaps it (then its bytes are in the parent's), and one reaped
/// outside the app's cgroup is gone from it for good. The watch therefore never lets the count fall (a fall would
/// count the same bytes twice when they come back): it counts again from where the sum passes the highest reading.
struct DiskWriteWatch: Sendable {
  /// One reading of the app's cumulative bytes written.
  struct Point: Sendable, Equatable {
    var at: Instant
    var bytes: Int64
  }

  var limit: DiskWriteLimit
  /// Oldest first, at least a twelfth of the window apart but for the newest; the first may lie before the window's
  /// start (it anchors the window's first stretch). Never empty.
  private(set) var points: [Point]
  /// When the last exception was raised: the next comes a window later at the earliest.
  var exceptionAt: Instant?

  init(limit: DiskWriteLimit, since: Instant) {
    self.limit = limit
    points = [Point(at: since, bytes: 0)]
  }

  /// Adds a reading and drops those no longer needed to cover the window. Readings are kept a twelfth of the window
  /// apart (the newest replaces a newer one than that), so a 24-hour window sampled every minute holds a dozen.
  mutating func add(at: Instant, bytes: Int64) {
    guard let last = points.last, at > last.at else { return }
    let point = Point(at: at, bytes: max(bytes, last.bytes))
    let spacing = limit.window / DiskWriteLimit.samplesPerWindow
    if points.count >= 2 && last.at.duration(since: points[points.count - 2].at) < spacing {
      points[points.count - 1] = point
    } else {
      points.append(point)
    }
    let start = at.advanced(by: .zero - limit.window)
    while points.count > 2 && points[1].at <= start { points.removeFirst() }
  }

  /// The bytes written within the window ending at the newest reading (interpolated at the window's start), and how
  /// much of the window the readings cover.
  func usage() -> (bytes: Int64, sampled: Duration)? {
    guard points.count >= 2, let last = points.last else { return nil }
    let start = last.at.advanced(by: .zero - limit.window)
    let first = points[0]
    guard first.at < start else { return (last.bytes - first.bytes, last.at.duration(since: first.at)) }
    // points[1] is inside the window (older ones are trimmed): what was written before the window started is the
    // straight line between the two.
    let next = points[1]
    let fraction = start.seconds(since: first.at) / next.at.seconds(since: first.at)
    let atStart = Double(first.bytes) + Double(next.bytes - first.bytes) * fraction
    return (last.bytes - Int64(atStart.rounded(.down)), limit.window)
  }
}
