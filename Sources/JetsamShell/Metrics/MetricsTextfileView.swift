import JetsamConfig

/// What ``MetricsTextfile`` reads of the daemon: where and how often to write (the config in force, which a reload
/// may change), and the text to write. The daemon hands it ``DaemonMetricsView``; unit tests a made-up one.
protocol MetricsTextfileView {
  /// The config's `metrics` settings in force.
  var metricsSettings: MetricsSettings { get }
  /// The Prometheus exposition as it stands (made on the loop).
  func expositionText() -> String
}
