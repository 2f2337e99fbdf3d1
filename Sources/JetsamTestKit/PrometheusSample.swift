/// The value of the sample `name` (a series with no labels, e.g. `jetsam_crash_reports_refused_total`) in a
/// Prometheus text exposition; nil when it has no such line or its value is not a number.
///
/// For the tests and the bench, which read one counter of jetsamd's `metrics --prometheus`; the exposition's own
/// tests check it with promtool.
public func prometheusSample(_ name: String, in exposition: String) -> Double? {
  let prefix = name + " "
  guard let line = exposition.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
  // A sample line is `name value [timestamp]`.
  return line.dropFirst(prefix.count).split(separator: " ").first.flatMap { Double($0) }
}
