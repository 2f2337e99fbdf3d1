/// The cgroup controllers jetsam uses for caps and counters, named as the kernel and libcgroup name them.
public enum CgroupController: String, CaseIterable, Sendable, Hashable, Comparable {
  /// Memory caps and usage: v1 `memory.limit_in_bytes`/`memory.usage_in_bytes`, v2 `memory.max`/`memory.current`.
  case memory
  /// CPU bandwidth caps: v1 `cpu.cfs_quota_us`, v2 `cpu.max`.
  case cpu
  /// CPU time used, v1 only (`cpuacct.usage`); on cgroup v2 `cpu.stat` is part of every cgroup.
  case cpuacct
  /// Process-count caps: `pids.max` in both versions.
  case pids

  /// The controllers that must be enabled in `cgroup.subtree_control` on cgroup v2 (cpuacct does not exist there).
  static let unifiedControllers: [CgroupController] = [.memory, .cpu, .pids]

  public static func < (lhs: CgroupController, rhs: CgroupController) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}
