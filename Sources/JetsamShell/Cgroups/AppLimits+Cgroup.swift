import JetsamCore

/// How an app's caps are written to its cgroup's control files.
extension AppLimits {
  /// The CFS bandwidth period jetsam writes (the kernel's default, 100 ms).
  static let cpuPeriodMicroseconds: Int64 = 100_000

  /// Rejects limits the kernel would refuse, with a message naming the limit.
  func validate(_ operation: @autoclosure () -> String) throws(CgroupError) {
    if let memoryBytes, memoryBytes <= 0 {
      throw CgroupError(.invalidArgument("memory limit \(memoryBytes) bytes (must be positive)"), operation())
    }
    if let cpuPercent { try validateCPUPercent(cpuPercent, operation()) }
    if let pids, pids <= 0 {
      throw CgroupError(.invalidArgument("pids limit \(pids) (must be positive)"), operation())
    }
  }

  /// The control file values that set these limits, per controller, in the order they must be written.
  ///
  /// - Parameters:
  ///   - pureV2: cgroup v2 file names and syntax when true, v1 otherwise.
  ///   - swapControl: whether the v2 cgroup has `memory.swap.max` (it does not without swap accounting).
  package func controlFileValues(pureV2: Bool, swapControl: Bool) -> [CgroupController: [CgroupFileValue]] {
    if pureV2 {
      var memory = [CgroupFileValue("memory.max", memoryBytes.map(String.init) ?? "max")]
      // No swap for apps: an app over its cap is killed, as on iOS, rather than pushed to swap.
      if swapControl { memory.append(CgroupFileValue("memory.swap.max", "0")) }
      // An OOM in the app kills the whole app (all its processes), not just the largest one.
      memory.append(CgroupFileValue("memory.oom.group", "1"))
      return [
        .memory: memory,
        .cpu: [CgroupFileValue("cpu.max", Self.cpuMax(cpuPercent))],
        .pids: [CgroupFileValue("pids.max", pids.map(String.init) ?? "max")],
      ]
    }
    return [
      .memory: [CgroupFileValue("memory.limit_in_bytes", memoryBytes.map(String.init) ?? "-1")],
      .cpu: Self.cfsValues(cpuPercent),
      .pids: [CgroupFileValue("pids.max", pids.map(String.init) ?? "max")],
    ]
  }

  /// The v2 `cpu.max` value for a cap in percent of one core (`"50000 100000"`, or `"max 100000"`).
  static func cpuMax(_ percent: Double?) -> String {
    "\(percent.map { String(quotaMicroseconds($0)) } ?? "max") \(cpuPeriodMicroseconds)"
  }

  /// The v1 `cpu.cfs_period_us` and `cpu.cfs_quota_us` values for a cap in percent of one core (-1: no cap).
  static func cfsValues(_ percent: Double?) -> [CgroupFileValue] {
    [
      CgroupFileValue("cpu.cfs_period_us", String(cpuPeriodMicroseconds)),
      CgroupFileValue("cpu.cfs_quota_us", percent.map { String(quotaMicroseconds($0)) } ?? "-1"),
    ]
  }

  /// The CFS quota per ``cpuPeriodMicroseconds`` for `percent` of one core.
  static func quotaMicroseconds(_ percent: Double) -> Int64 {
    Int64((percent * Double(cpuPeriodMicroseconds) / 100).rounded())
  }
}

/// Rejects CPU caps below 1 % of a core (the kernel's minimum quota is 1 ms per period) or not finite.
func validateCPUPercent(_ percent: Double, _ operation: @autoclosure () -> String) throws(CgroupError) {
  guard percent.isFinite, percent >= 1, percent <= 100_000 else {
    throw CgroupError(.invalidArgument("CPU limit \(percent) % (must be from 1 to 100000)"), operation())
  }
}
