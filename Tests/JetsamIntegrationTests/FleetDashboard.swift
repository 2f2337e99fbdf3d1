import Foundation
import JetsamTestKit

/// The fleet dashboard (`dashboards/jetsam-fleet.json`), read as Grafana reads its JSON model: the panels, their
/// PromQL targets, the template variables, and the substitution Grafana makes before a query reaches Prometheus.
/// The tests take the queries from the file, so that what they check is what an operator imports.
struct FleetDashboard {
  static let path = Binaries.packageRoot + "/dashboards/jetsam-fleet.json"

  /// One query of one panel.
  struct Target: CustomStringConvertible {
    let panel: String
    let refId: String
    let expr: String
    var description: String { "\(panel) [\(refId)]: \(expr)" }
  }

  let model: [String: Any]

  init() throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: Self.path))
    guard let model = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw TestKitError("\(Self.path) is not a JSON object")
    }
    self.model = model
  }

  var panels: [[String: Any]] { model["panels"] as? [[String: Any]] ?? [] }

  var variables: [[String: Any]] { (model["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? [] }

  /// Every panel's every target, in the file's order.
  var targets: [Target] {
    panels.flatMap { panel in
      (panel["targets"] as? [[String: Any]] ?? []).map {
        Target(
          panel: panel["title"] as? String ?? "?", refId: $0["refId"] as? String ?? "?",
          expr: $0["expr"] as? String ?? "")
      }
    }
  }

  /// A variable's query (`label_values(jetsam_info, instance)`): the string form of Grafana 8 or the object form
  /// of Grafana 9 and 10.
  static func query(of variable: [String: Any]) -> String? {
    (variable["query"] as? [String: Any])?["query"] as? String ?? variable["query"] as? String
  }

  /// `expr` as Grafana sends it with `instances` picked: `$instance` as a multi-value variable is formatted for a
  /// regex matcher (each value regex-escaped, in a PromQL string, then joined with `|` in a group).
  static func substituted(_ expr: String, instances: [String]) -> String {
    let escaped = instances.map { $0.replacingOccurrences(of: ".", with: #"\\."#) }
    return substituted(expr, instanceRegex: "(" + escaped.joined(separator: "|") + ")")
  }

  /// `expr` as Grafana sends it with `$instance` standing for `instanceRegex` (All picked: the variable's
  /// `allValue`), and the interval variables given concrete durations (`$__rate_interval` is at least four scrape
  /// intervals in Grafana, more over a long range; two minutes here keep the first host's kill in the window while
  /// the second host plays and the test looks, on a loaded machine too).
  static func substituted(_ expr: String, instanceRegex: String) -> String {
    expr
      .replacingOccurrences(of: "$__rate_interval", with: "2m")
      .replacingOccurrences(of: "$__interval", with: "15s")
      .replacingOccurrences(of: "$__range", with: "1h")
      .replacingOccurrences(of: "${instance}", with: instanceRegex)
      .replacingOccurrences(of: "$instance", with: instanceRegex)
  }
}
