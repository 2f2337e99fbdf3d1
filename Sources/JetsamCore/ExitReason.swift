/// Why an app's process ended, in the taxonomy of MetricKit's `MXAppExitMetric`.
public enum ExitReason: String, Codable, Sendable, CaseIterable {
  /// Exited with status 0.
  case normalAppExit
  /// Non-zero exit status, SIGABRT, SIGTRAP, or another fatal signal nobody in jetsam sent.
  case abnormal
  /// Killed by the kernel's cgroup OOM killer at the app's own memory cap.
  case memoryResourceLimit
  /// Stayed over its state's CPU budget past its CPU exception (the CPU monitor).
  case cpuResourceLimit
  /// Killed by jetsam to relieve device memory pressure.
  case memoryPressure
  /// SIGSEGV or SIGBUS.
  case badAccess
  /// SIGILL.
  case illegalInstruction
  /// Missed a lifecycle-event deadline (0x8badf00d).
  case appWatchdog
  /// Held a file lock as it was suspended (the locked-file check; 0xdead10cc).
  case suspendedWithLockedFile
  /// A background task was never ended (0x2182bad2).
  case backgroundTaskAssertionTimeout
}
