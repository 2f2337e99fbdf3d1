import JetsamConfig

/// Where the Prometheus exposition goes besides `jetsamctl metrics --prometheus`: the textfile for node_exporter and
/// the HTTP `/metrics` endpoint, each on when the config (or systemd's socket) asks for it.
struct MetricsOutputs {
  let textfile: MetricsTextfile
  let listener: MetricsListener

  /// Follows the config's `metrics` (at start and at a reload).
  func apply(_ settings: MetricsSettings) {
    textfile.restart()
    listener.configure(settings.listen)
  }

  /// A restart: scrapes wait for the next daemon in the socket's backlog.
  func stopAccepting() { listener.stopAccepting() }

  /// A stop.
  func close() { listener.close() }
}
