import Foundation
import JetsamCore
import JetsamProtocol

/// Writes a run's reports into its directory: `junit.xml`, `summary.json`, `trace.json` (Chrome's Trace Event
/// format) and `report.html`.
public enum LabReports {
  /// The files written, by kind.
  public struct Written: Sendable {
    public var junit: String
    public var summary: String
    public var trace: String
    public var html: String
  }

  public static func write(_ run: LabRun, to directory: String) throws -> Written {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let written = Written(
      junit: directory + "/junit.xml", summary: directory + "/summary.json", trace: directory + "/trace.json",
      html: directory + "/report.html")
    try Data(JUnitReport.xml(run).utf8).write(to: URL(fileURLWithPath: written.junit))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    try encoder.encode(LabSummary(run)).write(to: URL(fileURLWithPath: written.summary))
    try TraceReport.json(run).write(to: URL(fileURLWithPath: written.trace))
    try Data(HTMLReport.html(run).utf8).write(to: URL(fileURLWithPath: written.html))
    return written
  }
}

/// `summary.json`: the outcome, each step, and the records and verdicts that decided them.
struct LabSummary: Codable {
  var scenario: String
  var file: String
  var started: String
  var durationSeconds: Double
  var passed: Bool
  var counts: Counts
  var steps: [StepResult]
  var exits: [ExitRecord]
  var verdicts: [Verdict]
  /// The chaos session: its seed and every action with its outcome.
  var chaos: ChaosRecord?
  var resources: RunResources?
  /// Each app's MetricKit-shaped payload at the end of the run.
  var metrics: [MetricPayload]?
  /// A lab across hosts: each host, its clock offset against the lab's, and why it dropped out if it did.
  var hosts: [HostTrack]?

  struct Counts: Codable {
    var steps: Int
    var expectations: Int
    var failed: Int
    var errors: Int
  }

  struct Verdict: Codable {
    var app: String
    var launch: Int
    /// `restoration` or `resumption`.
    var kind: String
    var verdict: String
    var atSeconds: Double
  }

  init(_ run: LabRun) {
    scenario = run.scenario
    file = run.file
    started = run.started
    durationSeconds = run.durationSeconds
    passed = run.passed
    counts = Counts(
      steps: run.steps.count, expectations: run.steps.count(where: \.isExpectation),
      failed: run.steps.count { $0.outcome == .failed }, errors: run.steps.count { $0.outcome == .error })
    steps = run.steps
    exits = run.exits
    chaos = run.chaos
    resources = run.resources
    metrics = run.metrics
    hosts = run.hosts
    verdicts = run.timeline.compactMap { change in
      guard change.kind == .verdict, let app = change.app, let name = change.name, let verdict = change.verdict else {
        return nil
      }
      return Verdict(
        app: app, launch: change.launch ?? 0, kind: name, verdict: verdict,
        atSeconds: Double(change.monotonicNanoseconds - run.originNanoseconds) / 1e9)
    }
  }
}
