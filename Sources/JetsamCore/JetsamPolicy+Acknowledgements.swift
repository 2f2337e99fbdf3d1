import JetsamValues
import JetsamWire

/// The acknowledgements machine's place in the policy: it is handed one app's entry in place per event, the
/// lifecycle's moves become the events it delivers, and its `signposted` facts and the app's processing tasks
/// are what the signpost meter and the CPU monitor are told.
extension JetsamPolicy {
  /// The most background tasks one app may hold open at once (``Acknowledgements/maxOpenBackgroundTasks``).
  public static let maxOpenBackgroundTasks = Acknowledgements.maxOpenBackgroundTasks

  /// Runs `body` with the acknowledgements machine and app `name`'s entry, changed in place; nothing for an app
  /// not known.
  mutating func acknowledging(
    _ name: String, _ body: (Acknowledgements, inout TrackedApp) -> [PolicyAction]
  ) -> [PolicyAction] {
    guard lifecycle.apps.index(forKey: name) != nil else { return [] }
    return body(acknowledgements, &lifecycle.apps[name]!)
  }

  /// Inserts the lifecycle events each state change tells the app about, right after the change.
  mutating func attachLifecycleEvents(_ actions: [PolicyAction], at: Instant) -> [PolicyAction] {
    var result: [PolicyAction] = []
    for action in actions {
      result.append(action)
      guard case .stateChanged(let name, let from, let to, _) = action, lifecycle.apps.index(forKey: name) != nil
      else { continue }
      result += acknowledgements.lifecycleEvents(from: from, to: to, of: &lifecycle.apps[name]!, exits: exits, at: at)
    }
    return result
  }

  /// A message from the app: the acknowledgements machine takes it; a signpost it passed is metered right after its
  /// `signposted` fact, and a processing task begun or ended re-fits the app's CPU watch.
  mutating func appMessage(_ name: String, pid: Int32, message: AppMessage, at: Instant) -> [PolicyAction] {
    let processing = lifecycle.apps[name]?.process?.tasks.processing
    var actions = acknowledging(name) { $0.appMessage(message, from: pid, of: &$1, at: at) }
    if lifecycle.apps[name]?.process?.tasks.processing != processing { rewatchCPU(name, at: at) }
    for index in actions.indices {
      guard case .signposted(_, _, _, let signpost, let phase) = actions[index] else { continue }
      actions.insert(contentsOf: noteSignpost(name, signpost, phase, at: at), at: index + 1)
      break
    }
    return actions
  }

  /// memoryWarning to every foreground and background app when the level rises to warning or above.
  mutating func memoryWarnings(from before: PressureLevel, at: Instant) -> [PolicyAction] {
    guard level > before, level >= .warning else { return [] }
    var actions: [PolicyAction] = []
    let warning = AppEvent(id: 0, kind: .memoryWarning, level: level)
    // Foreground and background apps all have a process: the others are not visited.
    for name in lifecycle.apps.withProcess.sorted() {
      guard let state = lifecycle.apps.state(of: name), state.holdsForegroundSlot || state == .background,
        !lifecycle.apps.isKillRequested(name)
      else { continue }
      actions += acknowledging(name) { $0.deliver(warning, to: &$1, at: at) }
    }
    return actions
  }
}
