import JetsamReportPage

/// The run as JUnit XML, so that CI systems show it: one test case per expectation and per scenario-wide check,
/// and one per action that could not be carried out (an error).
enum JUnitReport {
  static func xml(_ run: LabRun) -> String {
    let cases = run.steps.filter { $0.isExpectation || $0.outcome == .error }
    let failures = cases.count { $0.outcome == .failed }
    let errors = cases.count { $0.outcome == .error }
    let skipped = cases.count { $0.outcome == .skipped }
    let suite = escape(run.scenario)
    var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    xml +=
      #"<testsuites name="jetsam-lab" tests="\#(cases.count)" failures="\#(failures)" errors="\#(errors)" "#
      + #"time="\#(seconds(run.durationSeconds))">"# + "\n"
    xml +=
      #"  <testsuite name="\#(suite)" tests="\#(cases.count)" failures="\#(failures)" errors="\#(errors)" "#
      + #"skipped="\#(skipped)" "#
      + #"time="\#(seconds(run.durationSeconds))" timestamp="\#(escape(run.started))" file="\#(escape(run.file))">"#
      + "\n"
    for step in cases {
      xml +=
        #"    <testcase classname="jetsam-lab.\#(suite)" name="\#(escape(step.location + " " + step.title))" "#
        + #"time="\#(seconds(step.durationSeconds))""#
      // The commands that spoke for the program, as a property a CI system shows beside the case.
      let properties =
        step.through.map {
          #"      <properties><property name="through" value="\#(escape($0.joined(separator: ", ")))"/></properties>"#
            + "\n"
        } ?? ""
      switch step.outcome {
      case .passed:
        xml += ">\n" + properties
        if let evidence = step.evidence { xml += "      <system-out>\(escape(evidence))</system-out>\n" }
      case .failed:
        xml += ">\n" + properties
        xml += #"      <failure type="expectation" message="\#(escape(step.message ?? ""))"/>"# + "\n"
      case .error:
        xml += ">\n" + properties
        xml += #"      <error type="step" message="\#(escape(step.message ?? ""))"/>"# + "\n"
      case .skipped:
        xml += ">\n" + properties
        xml += #"      <skipped message="\#(escape(step.message ?? ""))"/>"# + "\n"
      }
      xml += "    </testcase>\n"
    }
    xml += "  </testsuite>\n</testsuites>\n"
    return xml
  }

  private static func seconds(_ value: Double) -> String { ReportPage.fixed(value, 3) }

  /// Text fit for an XML attribute or element: the HTML pages' escaping (the five entities, and control characters
  /// XML 1.0 cannot hold).
  private static func escape(_ text: String) -> String { ReportPage.escape(text) }
}
