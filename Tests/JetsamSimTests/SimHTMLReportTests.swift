import Foundation
import JetsamSim
import Testing

/// The HTML page drawn from a report: a function of the report alone, bounded, its drawn counts the report's.
@Suite struct SimHTMLReportTests {
  static func report(seed: UInt64 = 5) throws -> SimReport {
    let model = try #require(try BuiltInModels.model(named: "phone-4gb"))
    var simulation = Simulation(model: model, apps: 300, duration: .seconds(6 * 3600), seed: seed)
    return simulation.run()
  }

  /// The values of `attribute` on the elements of class `className`.
  static func values(_ attribute: String, of className: String, in page: String) -> [String] {
    let pattern = #"class="\#(className)"[^>]*? \#(attribute)="([^"]*)""#
    let expression = try! NSRegularExpression(pattern: pattern)
    return expression.matches(in: page, range: NSRange(page.startIndex..., in: page)).compactMap {
      Range($0.range(at: 1), in: page).map { String(page[$0]) }
    }
  }

  @Test func theSameReportMakesTheSamePage() throws {
    let report = try Self.report()
    #expect(SimHTMLReport.html(report) == SimHTMLReport.html(try Self.report()))
    #expect(SimHTMLReport.html(report) != SimHTMLReport.html(try Self.report(seed: 6)))
  }

  @Test func theDrawnCountsAreTheReports() throws {
    let report = try Self.report()
    let page = SimHTMLReport.html(report)
    let counts = Self.values("data-count", of: "kill-bar", in: page).compactMap(Int.init)
    #expect(counts.reduce(0, +) == report.kills.total)
    #expect(counts.count == report.buckets.map(\.killsByReason.count).reduce(0, +))
    let levelSlices = report.buckets.map { $0.secondsAtLevel.keys.filter { $0 != "normal" }.count }.reduce(0, +)
    #expect(Self.values("data-level", of: "level", in: page).count == levelSlices)
    let line = try #require(page.range(of: #"class="resident-line" points="[^"]*""#, options: .regularExpression))
    #expect(page[line].split(separator: " ").count - 1 == report.resident.timeline.count)
    #expect(page.contains(#"<td class="number" id="unsaved-kills">\#(report.kills.withUnsavedState)</td>"#))
    // No address outside the page.
    #expect(!page.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("http"))
  }

  @Test func aPageStaysSmallWhateverTheRun() throws {
    // Bounded by the buckets and the timeline, not by the population or the events: a few hundred shapes.
    let report = try Self.report()
    let page = SimHTMLReport.html(report)
    #expect(page.utf8.count < 400_000)
    #expect(report.resident.timeline.count <= SimReport.Bucket.most + 1)
  }

  @Test func aModelsNameIsEscaped() throws {
    var report = try Self.report()
    report.model = #"<script>alert("x")</script> & co"#
    let page = SimHTMLReport.html(report)
    #expect(!page.contains("<script>alert"))
    #expect(page.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co"))
  }
}
