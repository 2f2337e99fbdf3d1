/// A point on the monotonic clock, in nanoseconds since an arbitrary origin (the shell uses CLOCK_MONOTONIC).
///
/// The core never reads a clock: every instant arrives inside an event, so tests script time exactly.
public struct Instant: Comparable, Hashable, Sendable, Codable, CustomStringConvertible {
  /// Nanoseconds since the clock's origin.
  public var nanoseconds: Int64

  public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

  /// An instant `milliseconds` after the origin (convenient in tests).
  public static func milliseconds(_ ms: Int64) -> Instant { Instant(nanoseconds: ms * 1_000_000) }

  /// An instant `seconds` after the origin.
  public static func seconds(_ s: Int64) -> Instant { Instant(nanoseconds: s * 1_000_000_000) }

  /// This instant moved by `duration` (which may be negative).
  public func advanced(by duration: Duration) -> Instant {
    Instant(nanoseconds: nanoseconds + duration.nanoseconds)
  }

  /// The time from `earlier` to this instant (negative if `earlier` is later).
  public func duration(since earlier: Instant) -> Duration {
    .nanoseconds(nanoseconds - earlier.nanoseconds)
  }

  /// Seconds from `earlier` to this instant, as a Double (for records).
  public func seconds(since earlier: Instant) -> Double {
    Double(nanoseconds - earlier.nanoseconds) / 1e9
  }

  public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

  public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

extension Duration {
  /// The whole duration in nanoseconds (saturating is not needed: durations here are far below 292 years).
  public var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
