/// Runs blocking work off the loop and hands its result back on the loop's thread. The daemon's is
/// ``BackgroundWork``; unit tests run the work in place, so that what its result leads to can be checked at once.
protocol BackgroundRunning: AnyObject {
  /// Runs `work` off the loop, then `then` with its result on the loop.
  func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result, then: @escaping (Result) -> Void)
}

extension BackgroundWork: BackgroundRunning {}
