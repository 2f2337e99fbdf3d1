import JetsamConfig
import JetsamCore
import JetsamShell

/// A config file, loaded as `jetsamd --check-config` and a reload load it, then every value jetsamd derives from
/// it: the thresholds for the device's RAM, the policy's tunables, and each app's cgroup control values on both
/// layouts. A refusal that does not say where in the file (a key path, or a line and column) is a failure.
enum ConfigFuzzing {
  static func run(_ bytes: [UInt8]) {
    let config: DaemonConfig
    do {
      config = try ConfigLoader.parse(bytes: bytes, file: "fuzzed.json5")
    } catch {
      precondition(error.namesPlace, "a config refusal that names no place: \(error)")
      return
    }
    let ram: Int64
    switch config.device.ram {
    case .bytes(let bytes): ram = bytes
    case .host: ram = 8 << 30
    }
    let thresholds = config.device.thresholds.resolved(ram: ram)
    _ = Daemon.policyConfig(config, thresholds: thresholds, oomScoreFloor: config.daemonOOMScoreAdj)
    _ = PressureMonitor.watchedAvailables(thresholds, ram: ram)
    for app in config.apps.values {
      let caps = config.defaults.overridden(by: app.caps)
      let limits = AppLimits(memoryBytes: caps.memoryLimit?.bytes, cpuPercent: caps.cpuLimit, pids: caps.pidsLimit)
      for pureV2 in [false, true] { _ = limits.controlFileValues(pureV2: pureV2, swapControl: pureV2) }
      _ = AppConfig.problem(command: app.command, env: app.env)
    }
  }
}
