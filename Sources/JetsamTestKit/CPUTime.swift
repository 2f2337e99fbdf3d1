import JetsamPlatform

/// The CPU time process `pid` has used so far (utime + stime of /proc/PID/stat), in seconds; nil when it is gone.
public func cpuSeconds(of pid: Int32) -> Double? {
  (try? ProcessStat.read(pid: pid))?.cpuTicks.map { Double($0) / Double(ProcessStat.ticksPerSecond) }
}
