/// One process's open background tasks (UIApplication's `beginBackgroundTask`), which outlive the stint they were
/// begun in.
struct BackgroundTasks: Sendable {
  /// Open tasks: id → name.
  var open: [Int: String] = [:]
  /// The open tasks of kind `processing` (exempt while the device is idle and charging).
  var processing: Set<Int> = []
  /// The id the next task gets.
  var nextID = 1

  /// Opens a task and returns its id.
  mutating func begin(_ name: String, kind: BackgroundTaskKind) -> Int {
    let id = nextID
    nextID += 1
    open[id] = name
    if kind == .processing { processing.insert(id) }
    return id
  }

  /// Drops every open task (the app is on its way out, or being suspended for pressure).
  mutating func endAll() {
    open = [:]
    processing = []
  }
}
