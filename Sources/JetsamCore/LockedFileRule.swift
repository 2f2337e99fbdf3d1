/// An app's rule for locks held at suspension.
public struct LockedFileRule: Sendable, Equatable, Codable {
  public var action: LockedFileAction
  /// Only locks on files at or below these absolute paths count (iOS punishes only locks on files shared with
  /// other processes, e.g. in an app group container); empty: every lock counts.
  public var paths: [String]
  /// Under `defer`: how long the app stays running before its suspension is tried again.
  public var retry: Duration

  /// A rule; by default locks are ignored (the daemon's config gives apps iOS's `kill` unless it says otherwise).
  public init(action: LockedFileAction = .ignore, paths: [String] = [], retry: Duration = .seconds(1)) {
    self.action = action
    self.paths = paths
    self.retry = retry
  }

  /// The locks the rule counts, in a stable order.
  public func counted(_ locks: [HeldLock]) -> [HeldLock] {
    let matching =
      paths.isEmpty ? locks : locks.filter { lock in paths.contains { Self.path(lock.path, isAtOrBelow: $0) } }
    return matching.sorted { ($0.path, $0.pid, $0.type) < ($1.path, $1.pid, $1.type) }
  }

  /// Whether `path` is `root` or lies below it (`/a/b` is below `/a` and `/a/`, not below `/a/bc`).
  static func path(_ path: String, isAtOrBelow root: String) -> Bool {
    var root = Substring(root)
    while root.count > 1 && root.hasSuffix("/") { root = root.dropLast() }
    if path == root { return true }
    return path.hasPrefix(root == "/" ? "/" : root + "/")
  }
}
