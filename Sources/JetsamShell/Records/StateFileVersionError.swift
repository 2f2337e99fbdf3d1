/// A state file of a newer jetsamd (after a downgrade): its apps are adopted from the cgroup tree instead (as after a
/// lost state file), with the settings the config gives them.
public struct StateFileVersionError: Error, CustomStringConvertible {
  public var found: Int
  public var description: String {
    "it is version \(found) of the state file; this jetsamd reads versions 1 to \(DaemonState.currentVersion)"
      + " (apps still running are adopted from the cgroup tree)"
  }
}
