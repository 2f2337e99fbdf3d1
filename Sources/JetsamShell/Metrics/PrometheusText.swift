/// Prometheus' text exposition format (version 0.0.4, which OpenMetrics parsers and promtool read too): one
/// HELP and one TYPE line per metric family, then its samples. Names follow Prometheus' conventions: a `jetsam_`
/// prefix, base units in the name (`_bytes`, `_seconds`), `_total` on counters.
struct PrometheusText {
  enum Kind: String {
    case counter, gauge, histogram
  }

  /// One sample: labels in order, and the value.
  struct Sample {
    var labels: [(String, String)]
    var value: Double

    init(_ labels: [(String, String)], _ value: Double) {
      self.labels = labels
      self.value = value
    }

    /// A sample without labels.
    init(_ value: Double) { self.init([], value) }
  }

  private(set) var text = ""

  /// Appends a family; one with no samples is left out (promtool and scrapers expect a sample per family).
  mutating func family(_ name: String, _ kind: Kind, help: String, _ samples: [Sample]) {
    guard !samples.isEmpty else { return }
    text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    for sample in samples {
      text += name
      if !sample.labels.isEmpty {
        text += "{" + sample.labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
      }
      text += " \(Self.format(sample.value))\n"
    }
  }

  /// Appends a histogram family: `NAME_bucket{le=…}` (cumulative, `+Inf` last), `NAME_sum`, `NAME_count`.
  mutating func histogram(_ name: String, help: String, _ histogram: LatencyHistogram) {
    text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) histogram\n"
    for (bound, count) in histogram.buckets { text += "\(name)_bucket{le=\"\(bound)\"} \(count)\n" }
    text += "\(name)_sum \(Self.format(histogram.sum))\n\(name)_count \(histogram.count)\n"
  }

  /// One series of a labelled histogram: its labels, `(le, cumulative count)` per bucket (`+Inf` last), and its
  /// sum when known.
  struct HistogramSeries {
    var labels: [(String, String)]
    var buckets: [(String, Int)]
    var sum: Double?
  }

  /// Appends a histogram family with one series per label set (left out if it has none). A series without a sum
  /// (jetsam keeps some durations as bucket counts only) has no `_sum` sample: the text format allows it, and
  /// quantiles need only the buckets.
  mutating func histograms(_ name: String, help: String, _ series: [HistogramSeries]) {
    guard !series.isEmpty else { return }
    text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) histogram\n"
    for one in series {
      let labels = one.labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }
      for (bound, count) in one.buckets {
        text += "\(name)_bucket{" + (labels + ["le=\"\(bound)\""]).joined(separator: ",") + "} \(count)\n"
      }
      let braces = labels.isEmpty ? "" : "{" + labels.joined(separator: ",") + "}"
      if let sum = one.sum { text += "\(name)_sum\(braces) \(Self.format(sum))\n" }
      text += "\(name)_count\(braces) \(one.buckets.last?.1 ?? 0)\n"
    }
  }

  /// A value as Prometheus writes it: integers without a fraction, `+Inf`, `-Inf`, `NaN`.
  static func format(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }

  /// A label value: backslash, double quote and newline escaped.
  static func escapeLabel(_ text: String) -> String { escape(text, quotes: true) }

  /// A HELP text: backslash and newline escaped.
  static func escapeHelp(_ text: String) -> String { escape(text, quotes: false) }

  private static func escape(_ text: String, quotes: Bool) -> String {
    var out = ""
    for character in text {
      switch character {
      case "\\": out += "\\\\"
      case "\"" where quotes: out += "\\\""
      case "\n": out += "\\n"
      default: out.append(character)
      }
    }
    return out
  }
}
