/// The directories that together make up one jetsam cgroup (the device or one app) across the mounted hierarchies.
///
/// - Hybrid layout: one directory per v1 hierarchy (memory, cpu, cpuacct, pids; co-mounted controllers share one)
///   for caps and counters, plus a plain cgroup2 directory in the unified mount for spawning, freeze, kill,
///   `cgroup.events` and PSI.
/// - Pure cgroup v2: a single directory does everything.
struct CgroupLocation: Sendable {
  /// The cgroup2 directory: spawn into it, freeze, kill, watch `cgroup.events`, read PSI.
  let v2: CgroupDirectory
  /// The directories carrying the controllers (on pure v2 this is `[v2]`).
  let controllerDirectories: [CgroupDirectory]
  let isPureV2: Bool

  /// The place of a cgroup called `name` directly below `placement` (a process's own cgroups) on `layout`.
  init(layout: CgroupLayout, below placement: CgroupPlacement, name: String) {
    switch layout {
    case .unified(let root):
      let base = CgroupDirectory(
        controllers: CgroupController.unifiedControllers, mountPoint: root, relativePath: placement.unified)
      v2 = base.child(name)
      controllerDirectories = [v2]
      isPureV2 = true
    case .hybrid(let mounts, let unifiedMount):
      v2 = CgroupDirectory(controllers: [], mountPoint: unifiedMount, relativePath: placement.unified).child(name)
      // Controllers co-mounted in one hierarchy (e.g. "cpu,cpuacct") share one directory.
      var byMount: [String: [CgroupController]] = [:]
      for controller in mounts.keys.sorted() { byMount[mounts[controller]!, default: []].append(controller) }
      controllerDirectories = byMount.keys.sorted().map { mountPoint in
        let controllers = byMount[mountPoint]!
        let relative = placement.v1[controllers[0]] ?? "/"
        return CgroupDirectory(controllers: controllers, mountPoint: mountPoint, relativePath: relative).child(name)
      }
      isPureV2 = false
    }
  }

  private init(v2: CgroupDirectory, controllerDirectories: [CgroupDirectory], isPureV2: Bool) {
    self.v2 = v2
    self.controllerDirectories = controllerDirectories
    self.isPureV2 = isPureV2
  }

  /// The cgroup `name` below this one, in every hierarchy.
  func child(_ name: String) -> CgroupLocation {
    let v2Child = v2.child(name)
    return CgroupLocation(
      v2: v2Child, controllerDirectories: isPureV2 ? [v2Child] : controllerDirectories.map { $0.child(name) },
      isPureV2: isPureV2)
  }

  /// The directory holding `controller`'s files.
  func directory(for controller: CgroupController) -> CgroupDirectory? {
    controllerDirectories.first { $0.controllers.contains(controller) }
  }

  /// Every directory, controller ones first.
  var allDirectories: [CgroupDirectory] { isPureV2 ? [v2] : controllerDirectories + [v2] }

  /// Whether every directory exists.
  func exists() -> Bool { allDirectories.allSatisfy { $0.exists() } }

  /// Creates every directory with `values`; when one fails, removes the ones this call made and rethrows.
  func create(values: [CgroupController: [CgroupFileValue]]) throws {
    var made: [CgroupDirectory] = []
    do {
      for directory in allDirectories {
        // Noted before creating: libcgroup leaves the directory behind when writing a value fails.
        if !directory.exists() { made.append(directory) }
        try directory.create(values: values.filter { directory.controllers.contains($0.key) })
      }
    } catch {
      for directory in made.reversed() { _ = try? directory.removeIfEmpty() }
      throw error
    }
  }

  /// Writes `values` into the directories carrying their controllers.
  func modify(values: [CgroupController: [CgroupFileValue]]) throws {
    for directory in controllerDirectories { try directory.modify(values: values) }
  }

  /// Removes every directory: the cgroup2 one first (on the hybrid layout it is where processes are killed and
  /// counted), then the controller ones. Each retries while processes are still leaving; the first failure stops
  /// the removal (the remaining directories would fail the same way, each after its own timeout).
  func removeIfEmpty() throws -> Bool {
    for directory in allDirectories.reversed() where !(try directory.removeIfEmpty()) { return false }
    return true
  }
}
