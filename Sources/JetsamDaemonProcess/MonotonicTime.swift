import Glibc

/// CLOCK_MONOTONIC in nanoseconds: the clock jetsam-testapp stamps its `--mark-file` with and jetsamd its exit
/// records' `killSignalledNanoseconds`, so that the bench can subtract any two of its observations directly.
public enum MonotonicTime {
  /// Now, in nanoseconds since boot. The corresponding C call is `clock_gettime(CLOCK_MONOTONIC)`.
  public static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  /// Milliseconds from `start` to `end` (negative when `end` is earlier).
  public static func milliseconds(from start: UInt64, to end: UInt64) -> Double {
    (Double(end) - Double(start)) / 1e6
  }

  /// Seconds elapsed since `start`.
  public static func seconds(since start: UInt64) -> Double {
    (Double(now()) - Double(start)) / 1e9
  }

  /// Sleeps for `milliseconds` (fractions allowed).
  public static func sleep(milliseconds: Double) {
    guard milliseconds > 0 else { return }
    usleep(UInt32(milliseconds * 1000))
  }
}
