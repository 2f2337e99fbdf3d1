import JetsamControlClient
import JetsamDaemonProcess
import Testing

/// Round trips of `status` over one client, timed: how promptly jetsamd answers a client while something else
/// loads it (a flood of forged crash lines, a command that prints without stopping).
struct StatusRoundTrips {
  let client: ControlClient
  /// Each round trip, in seconds.
  private(set) var seconds: [Double] = []

  /// Times one `status` and keeps the figure (an answer that is an error is an issue of the test).
  mutating func time() throws {
    let start = MonotonicTime.now()
    let (code, message) = try client.errorFor(#"{"v":1,"verb":"status"}"#)
    #expect(code == nil, "\(message)")
    seconds.append(MonotonicTime.seconds(since: start))
  }

  /// The `p`th percentile of the round trips, in seconds.
  func percentile(_ p: Int) -> Double {
    let sorted = seconds.sorted()
    return sorted[min(sorted.count - 1, sorted.count * p / 100)]
  }
}
