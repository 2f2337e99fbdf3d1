/// The daemon's ``ResultInbox``: every result an owner posts is taken by the daemon as it is posted
/// (``Daemon/take(_:)``), its events fed to the policy through the one entry point.
///
/// It is made before the owners it is handed to, which the daemon holds: it is bound to the daemon once the daemon
/// is whole, and holds it weakly. Nothing is posted before then (no owner has been asked to do anything yet).
final class DaemonInbox: ResultInbox {
  private weak var daemon: Daemon?

  /// From now on, results go to `daemon`.
  func bind(to daemon: Daemon) { self.daemon = daemon }

  func post(_ result: OwnerResult) { daemon?.take(result) }
}
