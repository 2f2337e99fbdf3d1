import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamProtocol

extension Daemon {
  /// SIGHUP (`systemctl reload`): read the config again and apply new thresholds, timings and caps to the
  /// running apps without restarting them. A bad config is logged and the old one stays in force.
  func reload() {
    service.manager.reloading()
    defer { service.ready(statusLine()) }
    let fresh: DaemonConfig
    do {
      fresh = try ConfigLoader.load(path: options.configPath, profile: options.profilePath)
    } catch {
      log.error("reload refused, keeping the running configuration: \(error)")
      return
    }
    var unchangeable: [String] = []
    if fresh.device.ram != config.device.ram { unchangeable.append("device.ram") }
    if fresh.device.cgroupName != config.device.cgroupName { unchangeable.append("device.cgroupName") }
    if fresh.stateDirectory != config.stateDirectory { unchangeable.append("stateDirectory") }
    if fresh.runtimeDirectory != config.runtimeDirectory { unchangeable.append("runtimeDirectory") }
    if !unchangeable.isEmpty {
      log.warning("reload: \(unchangeable.joined(separator: ", ")) take effect only at the next start")
    }
    let previous = config
    config = fresh
    config.device.ram = previous.device.ram
    config.device.cgroupName = previous.device.cgroupName
    config.stateDirectory = previous.stateDirectory
    config.runtimeDirectory = previous.runtimeDirectory

    metricsOutputs.apply(config.metrics)
    supervisor.suspender.mode = config.suspend.mode
    supervisor.requests.passedEnvironment = Self.passedEnvironment(config)
    var events: [PolicyEvent] = [
      .reconfigure(
        Daemon.policyConfig(
          config, thresholds: config.device.thresholds.resolved(ram: pressure.monitor.counter.ramBytes),
          oomScoreFloor: policy.config.oomScoreFloor))
    ]
    // The device's cap first: the apps' caps are clamped to it as they are written.
    if let cpu = config.device.appsCPULimit { try? device.setAppsCPULimit(percent: cpu) }
    // A running app gets its new caps now and the rest at its next launch (the policy's call).
    events += config.configureEvents
    do {
      try submit(events)
    } catch {
      log.error("reload: \(error)")
    }
    do {
      try pressure.reconfigure(config.device.thresholds)
    } catch {
      log.error("reload: restarting the pressure monitor: \(error)")
    }
    log.notice(
      "reloaded \(options.configPath ?? "the built-in defaults"): \(supervisor.processes.count) running app(s) updated")
    pressure.sample()
  }
}
