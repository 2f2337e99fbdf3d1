import Glibc

/// Polls `value` every `interval` until it gives something; `nil` when `timeout` passes first (it is asked once
/// more at the end, so that a slow last poll still counts).
///
/// The one polling loop of the tests, the bench and the lab: everything that waits for something it can only look
/// at waits through this, with a bound.
///
/// - Parameters:
///   - timeout: how long to wait at most.
///   - interval: the pause between two looks.
///   - value: what is awaited, `nil` while it is not there yet.
/// - Returns: the first value given, or `nil` after `timeout`.
public func waitFor<Value>(
  timeout: Duration, interval: Duration = .milliseconds(5), _ value: () throws -> Value?
) rethrows -> Value? {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    if let found = try value() { return found }
    pause(interval)
  }
  return try value()
}

/// Polls `condition` every `interval` until it holds; throws when `timeout` passes first.
///
/// - Parameters:
///   - what: what is awaited, for the error (`"the balloon to fill"`).
///   - timeout: how long to wait at most.
///   - interval: the pause between two checks.
/// - Throws: ``WaitTimeout`` `timed out after 5 s waiting for WHAT`, or what `condition` throws.
public func waitUntil(
  _ what: @autoclosure () -> String, timeout: Duration, interval: Duration = .milliseconds(5),
  _ condition: () throws -> Bool
) throws {
  if try eventually(timeout: timeout, interval: interval, condition) { return }
  throw WaitTimeout(what: what(), timeout: timeout)
}

/// Polls `condition` every `interval` until it holds or `timeout` passes; checks once more at the end.
///
/// - Returns: whether it held (for `#expect(eventually { ... })`).
public func eventually(
  timeout: Duration = .seconds(5), interval: Duration = .milliseconds(5), _ condition: () throws -> Bool
) rethrows -> Bool {
  try waitFor(timeout: timeout, interval: interval) { try condition() ? true : nil } ?? false
}

/// Sleeps the calling thread for `duration` (nothing when not positive); a long one in slices that a `usleep` can
/// take, so that two hours are two hours. Tests, the bench and the lab may block; the daemon never does.
public func pause(_ duration: Duration) {
  let (seconds, attoseconds) = duration.components
  var microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
  while microseconds > 0 {
    let slice = min(microseconds, 1_000_000_000)
    usleep(UInt32(slice))
    microseconds -= slice
  }
}

extension Duration {
  /// Seconds without trailing zeros: `5`, `0.25`.
  public var secondsText: String {
    let (seconds, attoseconds) = components
    let value = Double(seconds) + Double(attoseconds) / 1e18
    return value == value.rounded() ? String(Int64(value)) : String(value)
  }
}
