/// Sockets at suspension (iOS defuncts a suspended app's network sockets) as the app's own: once every process of a
/// suspended app is seen stopped, its rule decides whether its sockets are destroyed; what was destroyed is then
/// told.
extension TrackedApp {
  /// The sockets' fate for an app whose suspension just completed: nothing when its rule keeps them. Decided at each
  /// completed stop, so that sockets an app opened while something else continued it are defuncted too.
  func defunctSocketsAtSuspension() -> [PolicyAction] {
    guard state == .suspended, settings.sockets == .defunct, let pid = process?.pid else { return [] }
    return [.defunctSockets(app: name, pid: pid)]
  }

  /// The shell destroyed `sockets` of the app's process `pid` (or could not: `problem`): told unless there is nothing
  /// to tell. It is told even if the app has returned meanwhile: its sockets are gone all the same.
  func socketsDefuncted(pid: Int32, sockets: [DefunctedSocket], problem: String?) -> [PolicyAction] {
    guard process?.pid == pid, !sockets.isEmpty || problem != nil else { return [] }
    return [.socketsDefuncted(app: name, pid: pid, sockets: sockets, problem: problem)]
  }
}
