/// The apps running now, by name: the supervisor's table, handed at init to the parts that look apps up in it (the
/// suspender, the end watcher, the channels, the disk-write sampler, the launches). An app enters it when the end
/// watcher starts watching it (``AppEndWatcher/watch(_:)``) and leaves it once its exit is being recorded.
final class RunningApps {
  private(set) var byName: [String: AppProcess] = [:]

  /// The running app named `name`.
  subscript(name: String) -> AppProcess? { byName[name] }

  /// The running app `name` if its main process is `pid` (an action for an earlier launch finds nothing).
  func process(_ name: String, pid: Int32) -> AppProcess? {
    guard let app = byName[name], app.pid == pid else { return nil }
    return app
  }

  /// The running app whose main process is `pid`.
  func withMainProcess(_ pid: Int32) -> AppProcess? { byName.values.first { $0.pid == pid } }

  /// Every running app, in no particular order.
  var all: Dictionary<String, AppProcess>.Values { byName.values }

  /// Enters `app`, in place of any earlier process of its name.
  func add(_ app: AppProcess) { byName[app.name] = app }

  /// App `name` no longer runs.
  func remove(_ name: String) { byName[name] = nil }
}
