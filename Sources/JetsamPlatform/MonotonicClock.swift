import Glibc
import JetsamValues

/// Reads CLOCK_MONOTONIC, the only clock the shell hands to the policy.
public enum MonotonicClock {
  /// The current monotonic instant.
  public static func now() -> Instant {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
  }
}
