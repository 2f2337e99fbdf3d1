import JetsamProtocol

/// Who ``LiveFeed`` pushes to, and how: the clients that watch and a way to send them lines. The daemon's is the
/// ``ControlServer`` with its connections; unit tests hand in one that records what went to whom.
protocol LiveAudience: AnyObject {
  /// One watching client.
  associatedtype Watcher: LiveWatcher
  /// Whether any client watches (the feed builds nothing otherwise).
  var hasWatchers: Bool { get }
  /// The clients that watch.
  var watchers: [Watcher] { get }
  /// Sends a change to every watcher.
  func publish(_ change: LiveChange)
  /// Sends one line to each of `clients`, encoded once.
  func send(_ response: ControlResponse, to clients: [Watcher])
}

/// A client of the live feed: its `watch` subscription (set once it watches, dropped with it).
protocol LiveWatcher: AnyObject {
  var watch: WatchSubscription? { get set }
}

extension ControlServer: LiveAudience {}

extension ControlConnection: LiveWatcher {}
