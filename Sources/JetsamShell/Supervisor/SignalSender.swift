import Glibc
import JetsamCore
import JetsamPlatform
import JetsamValues

/// Sends signals and reads scheduler states (the real one uses kill(2), pidfds and /proc).
public protocol SignalSender: AnyObject {
  /// Sends `signal` to `pid`; a process that is already gone is not an error.
  func send(_ signal: Signal, to pid: pid_t)
  /// Sends `signal` through a pidfd, which cannot hit a recycled pid.
  func send(_ signal: Signal, pidfd: FileDescriptor) throws
  /// The one-letter scheduler state of `pid` (`R`, `S`, `D`, `T`, `Z`…), nil when it is gone.
  func state(of pid: pid_t) -> Character?
  /// Whether our child behind `pidfd` is stopped, cheaper than ``state(of:)``; nil when that cannot be told this
  /// way (not our child): ask ``state(of:)``.
  func isStoppedChild(pidfd: FileDescriptor) -> Bool?
  /// Whether our child behind `pidfd` was continued since it last stopped; nil when that cannot be told (not our
  /// child).
  func isContinuedChild(pidfd: FileDescriptor) -> Bool?
  /// Sets `pid`'s oom_score_adj.
  func setOOMScoreAdj(_ value: Int32, of pid: pid_t) throws
}

/// The kernel's signals.
public final class KernelSignals: SignalSender {
  public init() {}

  public func send(_ signal: Signal, to pid: pid_t) { _ = Glibc.kill(pid, signal.rawValue) }

  public func send(_ signal: Signal, pidfd: FileDescriptor) throws { try sendSignal(pidfd: pidfd, signal) }

  public func state(of pid: pid_t) -> Character? { processState(pid: pid) }

  public func isStoppedChild(pidfd: FileDescriptor) -> Bool? { JetsamPlatform.isStoppedChild(pidfd: pidfd) }

  public func isContinuedChild(pidfd: FileDescriptor) -> Bool? { JetsamPlatform.isContinuedChild(pidfd: pidfd) }

  public func setOOMScoreAdj(_ value: Int32, of pid: pid_t) throws {
    try JetsamPlatform.setOOMScoreAdj(pid: pid, value)
  }
}
