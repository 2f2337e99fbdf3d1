/// What a diagnostic is taken for (MetricKit's diagnostic kinds), with what the policy knows of it. The shell takes
/// the call stacks and keeps the diagnostic.
public enum DiagnosticRequest: Sendable, Equatable {
  /// A lifecycle event's handler hung past its watchdog deadline: the stacks are taken before the SIGKILL that
  /// follows (MetricKit's hang diagnostic; iOS takes it for 0x8badf00d).
  case hang(event: AppEventKind, seconds: Double)
  /// The app went over its CPU budget: a few stack samples while it burns (MetricKit's CPU exception diagnostic).
  case cpuException(CPUUsageReport)
  /// The app wrote more than its limit within the window: a few stack samples while it writes (MetricKit's
  /// disk-write exception diagnostic; non-fatal).
  case diskWriteException(DiskWriteReport)
  /// One of the app's processes got a fatal signal and waits in jetsam's crash handler: its stacks now, then the
  /// crash goes on (MetricKit's crash diagnostic).
  case crash(CrashReport)
}
