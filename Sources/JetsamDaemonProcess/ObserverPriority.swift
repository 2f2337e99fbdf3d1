import Glibc

/// Real-time priority for the bench's observer threads (log readers, pidfd watchers, the memory sampler), so that
/// on a busy machine an observation is stamped when it happens rather than when the scheduler next runs the bench.
/// They sleep almost all the time; what they take from the measured tools is a few tens of microseconds per wake-up.
public enum ObserverPriority {
  /// SCHED_FIFO priority 10 for the calling thread (the corresponding C function is `pthread_setschedparam`); false when the system refuses it (the thread then keeps its
  /// normal priority and observations may lag by the machine's scheduling latency).
  @discardableResult
  public static func promoteCurrentThread() -> Bool {
    var parameters = sched_param()
    parameters.sched_priority = 10
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0
  }
}
