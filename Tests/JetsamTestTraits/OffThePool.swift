import Dispatch
import Testing

/// Runs a suite's tests on threads that may block, instead of Swift's cooperative pool.
///
/// The kernel and integration tests wait synchronously: for a process to end (`runCommand`), for a file to appear
/// (`eventually`), on a socket. On the cooperative pool, which has one thread per CPU (two on the CI machines), two
/// such waits stop every other test: a 75 s lab battery beside another long test held the whole run, and tiny tests
/// that happened to be suspended meanwhile failed their one-minute time limits without having run. Here each job
/// of a test gets a thread of a concurrent queue, which starts another thread when its threads block; how many tests
/// run at once is set by the runner (`SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH` in the Makefile).
public struct OffThePoolTrait: SuiteTrait, TestTrait, TestScoping {
  /// Every test of the suite, nested suites included.
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try await function() }
  }
}

extension Trait where Self == OffThePoolTrait {
  /// The suite's tests block their threads (processes, files, sockets): run them off Swift's cooperative pool.
  public static var offThePool: Self { OffThePoolTrait() }
}

/// A task executor whose jobs run on a concurrent dispatch queue: a job that blocks holds one thread of its own, and
/// the queue starts another for the next job (dispatch's overcommitting root queue), so no test waits on another's
/// blocking wait.
final class BlockingTestExecutor: TaskExecutor {
  static let shared = BlockingTestExecutor()
  private let queue = DispatchQueue(label: "jetsam.tests.blocking", attributes: .concurrent)

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }
}
