import Glibc

/// Polls `condition` every `interval` until it holds; throws when `timeout` passes first.
///
/// - Parameters:
///   - what: what is awaited, for the error (`"the balloon to fill"`).
///   - timeout: how long to wait at most.
///   - interval: the pause between two checks.
/// - Throws: ``TestKitError`` `timed out after 5 s waiting for WHAT`, or what `condition` throws.
public func waitUntil(
  _ what: @autoclosure () -> String, timeout: Duration, interval: Duration = .milliseconds(5),
  _ condition: () throws -> Bool
) throws {
  if try eventually(timeout: timeout, interval: interval, condition) { return }
  throw TestKitError("timed out after \(timeout.secondsText) s waiting for \(what())")
}

/// Polls `condition` every `interval` until it holds or `timeout` passes; checks once more at the end.
///
/// - Returns: whether it held (for `#expect(eventually { ... })`).
public func eventually(
  timeout: Duration = .seconds(5), interval: Duration = .milliseconds(5), _ condition: () throws -> Bool
) rethrows -> Bool {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    if try condition() { return true }
    pause(interval)
  }
  return try condition()
}

/// Sleeps the calling thread for `duration` (tests and the bench may block; the daemon never does).
public func pause(_ duration: Duration) {
  let (seconds, attoseconds) = duration.components
  let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
  guard microseconds > 0 else { return }
  usleep(UInt32(clamping: microseconds))
}

extension Duration {
  /// Seconds without trailing zeros: `5`, `0.25`.
  var secondsText: String {
    let (seconds, attoseconds) = components
    let value = Double(seconds) + Double(attoseconds) / 1e18
    return value == value.rounded() ? String(Int64(value)) : String(value)
  }
}
