import Foundation
import JetsamCore

extension Daemon {
  /// SIGHUP (`systemctl reload`): read the config again and apply new thresholds, timings and caps to the
  /// running apps without restarting them. A bad config is logged and the old one stays in force.
  func reload() {
    serviceManager.reloading()
    defer { serviceManager.ready(status: statusLine()) }
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

    thresholds = config.device.thresholds.resolved(ram: monitor.counter.ramBytes)
    policy.reconfigure(Daemon.policyConfig(config, thresholds: thresholds))
    do {
      let counter = monitor.counter
      monitor.stop()
      monitor = try makePressureMonitor(counter: counter, pressureFDs: openPressureTriggers())
    } catch {
      log.error("reload: restarting the pressure monitor: \(error)")
    }
    if let cpu = config.device.appsCPULimit { try? device.setAppsCPULimit(percent: cpu) }
    for (name, app) in processes {
      if let configured = config.apps[name] { launchSpecs[name]?.caps = configured.caps }
      let caps = config.defaults.overridden(by: (launchSpecs[name] ?? config.apps[name])?.caps)
      do {
        try app.cgroup.setLimits(
          AppLimits(memoryBytes: caps.memoryLimit?.bytes, cpuPercent: caps.cpuLimit, pids: caps.pidsLimit))
      } catch {
        log.error("reload: new caps for \(name): \(error)")
      }
    }
    for (name, app) in config.apps.sorted(by: { $0.key < $1.key })
    where policy.app(named: name)?.state.isRunning != true {
      _ = try? policy.handle(.configure(app: name, bandFloor: app.band, launchCount: lastExits[name]?.launch ?? 0))
    }
    log.notice("reloaded \(options.configPath ?? "the built-in defaults"): \(processes.count) running app(s) updated")
    monitor.sample()
  }
}
