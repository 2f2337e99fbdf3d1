import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamProtocol

extension Daemon {
  /// The values jetsamd has of the variables the config passes on to apps.
  static func passedEnvironment(_ config: DaemonConfig) -> [String: String] {
    let own = ProcessInfo.processInfo.environment
    return Dictionary(uniqueKeysWithValues: config.passEnvironment.compactMap { key in own[key].map { (key, $0) } })
  }

  /// Each app holds about ten descriptors (pidfd, cgroup counters, events): lift the soft limit to the hard one
  /// so that hundreds of apps fit.
  static func raiseDescriptorLimit() {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  }

  package static func policyConfig(_ config: DaemonConfig, thresholds: PressureThresholds, oomScoreFloor: Int32)
    -> PolicyConfig
  {
    var policy = PolicyConfig(
      thresholds: thresholds, foregroundSlots: config.foregroundSlots,
      backgroundGrace: config.suspend.backgroundGrace?.duration, killTimeout: config.killTimeout.duration,
      terminateGrace: config.terminateGrace.duration, lifecycle: config.lifecycleTimings,
      suspendTimeout: config.suspend.timeout.duration, oomScoreFloor: oomScoreFloor)
    policy.suspendBeforeKill = config.suspend.beforeJetsamKill
    policy.cpu = config.cpuMonitor.policyConfig(timeScale: config.timeScale)
    policy.watchdogUnderDebugger = config.watchdog.underDebugger
    return policy
  }
}
