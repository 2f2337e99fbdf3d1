import Glibc

/// CLOCK_MONOTONIC in nanoseconds: the clock jetsam-testapp stamps its `--mark-file` with, so that the
/// allocator's crossing time and every observation of the bench can be subtracted directly.
enum MonotonicTime {
  /// Now, in nanoseconds since boot (CLOCK_MONOTONIC).
  static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  /// Milliseconds from `start` to `end` (negative when `end` is earlier).
  static func milliseconds(from start: UInt64, to end: UInt64) -> Double {
    (Double(end) - Double(start)) / 1e6
  }

  /// Seconds elapsed since `start`.
  static func seconds(since start: UInt64) -> Double {
    (Double(now()) - Double(start)) / 1e9
  }

  /// Sleeps for `milliseconds` (fractions allowed).
  static func sleep(milliseconds: Double) {
    guard milliseconds > 0 else { return }
    usleep(UInt32(milliseconds * 1000))
  }
}
