import Foundation

/// The bench's result table: metric, jetsamd, earlyoom, earlyoom ÷ jetsamd, target, whether jetsamd met it.
struct ReportTable {
  /// How a row's values are printed.
  enum Unit {
    case milliseconds
    case seconds
    case megabytes
    case percent
    case count
  }

  /// What jetsamd must achieve on a row.
  enum Target {
    /// Below this value (in the row's unit).
    case below(Double)
    /// At most this value (in the row's unit).
    case atMost(Double)
    /// At most half of earlyoom's value ("clearly shorter").
    case clearlyBelowEarlyoom
  }

  private enum Row {
    case section(String)
    case values(metric: String, jetsamd: String, earlyoom: String, ratio: String, target: String, met: String)
  }

  private var rows: [Row] = []

  mutating func section(_ title: String) { rows.append(.section(title)) }

  mutating func add(_ metric: String, jetsamd: Double?, earlyoom: Double? = nil, unit: Unit, target: Target? = nil) {
    var ratio = ""
    if let jetsamd, let earlyoom, jetsamd > 0 { ratio = String(format: "%.1f×", earlyoom / jetsamd) }
    var targetText = ""
    var met = ""
    switch target {
    case .below(let limit)?:
      targetText = "< " + Self.format(limit, unit)
      if let jetsamd { met = jetsamd < limit ? "yes" : "NO" }
    case .atMost(let limit)?:
      targetText = "≤ " + Self.format(limit, unit)
      if let jetsamd { met = jetsamd <= limit ? "yes" : "NO" }
    case .clearlyBelowEarlyoom?:
      targetText = "≤ ½ earlyoom"
      if let jetsamd, let earlyoom { met = jetsamd <= earlyoom / 2 ? "yes" : "NO" }
    case nil: break
    }
    rows.append(
      .values(
        metric: metric, jetsamd: jetsamd.map { Self.format($0, unit) } ?? "-",
        earlyoom: earlyoom.map { Self.format($0, unit) } ?? "-", ratio: ratio, target: targetText, met: met))
  }

  /// A row with text cells (for values that are not numbers).
  mutating func addText(
    _ metric: String, jetsamd: String, earlyoom: String = "-", target: String = "", met: String = ""
  ) {
    rows.append(.values(metric: metric, jetsamd: jetsamd, earlyoom: earlyoom, ratio: "", target: target, met: met))
  }

  static func format(_ value: Double, _ unit: Unit) -> String {
    switch unit {
    case .milliseconds:
      if value < 10 { return String(format: "%.2f ms", value) }
      if value < 100 { return String(format: "%.1f ms", value) }
      return String(format: "%.0f ms", value)
    case .seconds: return String(format: "%.1f s", value)
    case .megabytes: return String(format: "%.1f MB", value)
    case .percent: return String(format: "%.3f %%", value)
    case .count: return String(format: "%.0f", value)
    }
  }

  func render() -> String {
    let header = ["METRIC", "JETSAMD", "EARLYOOM", "EO/JD", "TARGET", "MET"]
    var cells: [[String]] = []
    for row in rows {
      if case .values(let metric, let jetsamd, let earlyoom, let ratio, let target, let met) = row {
        cells.append([metric, jetsamd, earlyoom, ratio, target, met])
      }
    }
    let widths = (0..<header.count).map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
    func line(_ row: [String]) -> String {
      row.enumerated().map { index, cell in
        index == 0
          ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
          : String(repeating: " ", count: widths[index] - cell.count) + cell
      }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }
    var output = [line(header)]
    let rule = String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1))
    output.append(rule)
    for row in rows {
      switch row {
      case .section(let title): output.append(title)
      case .values(let metric, let jetsamd, let earlyoom, let ratio, let target, let met):
        output.append(line([metric, jetsamd, earlyoom, ratio, target, met]))
      }
    }
    return output.joined(separator: "\n")
  }
}
