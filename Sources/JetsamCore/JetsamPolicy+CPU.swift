import JetsamValues

/// The CPU monitor's place in the policy: what it is told of the apps, and what its judgements become.
extension JetsamPolicy {
  /// Fits app `name`'s CPU watch to its state: called whenever the state, its tasks, the device's charging or the
  /// config changes.
  mutating func rewatchCPU(_ name: String, at: Instant) {
    // Read in place, through the app's index: this runs at every state change.
    guard let index = lifecycle.apps.index(forKey: name) else { return }
    let subject = lifecycle.apps.values[index].cpuSubject
    let wanted = subject.flatMap { CPUMonitor.limits(for: $0, deviceCharging: deviceCharging, defaults: config.cpu) }
    cpu.rewatch(name, pid: subject?.pid, wanted: wanted, at: at)
  }

  /// Re-fits every app's watch (the device's charging or the config changed).
  mutating func rewatchEveryApp(at: Instant) {
    for name in lifecycle.apps.keys.sorted() { rewatchCPU(name, at: at) }
  }

  /// The device is (or is no longer) idle and charging: processing tasks are exempt while it is.
  mutating func setCharging(_ charging: Bool, at: Instant) -> [PolicyAction] {
    guard charging != deviceCharging else { return [] }
    deviceCharging = charging
    rewatchEveryApp(at: at)
    return []
  }

  /// Readings came back: each watched app's usage is judged, and an app over its fatal limit gets its exception's
  /// stacks, then its kill (the shell takes the stacks before it sends the SIGKILL).
  mutating func cpuSampled(_ samples: [CPUSample], at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    for sample in samples {
      // An app on its way out (killed for this or anything else) is judged no more.
      guard cpu.add(sample, at: at), lifecycle.apps[sample.app]?.requestedKill == nil,
        let judgement = cpu.judge(sample.app, at: at)
      else { continue }
      switch judgement {
      case .exceeded(let report):
        actions.append(.diagnose(app: sample.app, pid: sample.pid, .cpuException(report)))
      case .fatal(let report):
        actions.append(.diagnose(app: sample.app, pid: sample.pid, .cpuException(report)))
        let pressure = jetsam.pressure
        actions +=
          lifecycle.apps[sample.app]?.killForItself(.cpuLimit(report), reason: .cpuResourceLimit, pressure: pressure)
          ?? []
      }
    }
    return actions
  }
}

extension TrackedApp {
  /// What the CPU monitor reads of the app; nil while no process runs.
  var cpuSubject: CPUMonitor.Subject? {
    // Through the app's fields in place: a copy of its process would retain each of its fields.
    guard let pid = process?.pid else { return nil }
    return CPUMonitor.Subject(
      pid: pid, state: state, killRequested: requestedKill != nil,
      runsProcessingTask: process?.tasks.processing.isEmpty == false, ownLimits: settings.cpuLimits)
  }
}
