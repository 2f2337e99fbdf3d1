import FoundationEssentials

/// The config's `metrics`: where jetsamd writes its Prometheus exposition for node_exporter's textfile collector,
/// and how often; and where it serves it over HTTP, if anywhere.
public struct MetricsSettings: Sendable, Codable, Equatable {
  /// The file (ending in `.prom`) rewritten atomically every `interval`; nil (the default): none is written.
  public var textfile: String?
  public var interval = ConfigDuration(.seconds(15))
  /// The address on which jetsamd answers `GET /metrics` itself; nil (the default): it listens on none (under
  /// systemd, jetsamd-metrics.socket passes it a socket instead, and its sandbox stays without network).
  public var listen: ListenAddress?

  public init() {}

  enum CodingKeys: String, CodingKey, CaseIterable {
    case textfile, interval, listen
  }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    textfile = try c.decodeIfPresent(String.self, forKey: .textfile)
    interval = try c.decodeIfPresent(ConfigDuration.self, forKey: .interval) ?? MetricsSettings().interval
    listen = try c.decodeIfPresent(ListenAddress.self, forKey: .listen)
    if let path = textfile, !path.hasPrefix("/") || !path.hasSuffix(".prom") || path.contains("/../") {
      throw DecodingError.dataCorruptedError(
        forKey: .textfile, in: c,
        debugDescription: "must be an absolute path ending in .prom (node_exporter's textfile collector reads *.prom)")
    }
    if !(interval.duration >= .seconds(1) && interval.duration <= .seconds(3600)) {
      throw DecodingError.dataCorruptedError(forKey: .interval, in: c, debugDescription: "must be from 1s to 1h")
    }
  }
}
