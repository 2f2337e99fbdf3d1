import Foundation
import JetsamTestKit
import JetsamTestTraits
import Testing

/// `jetsam-sim --html`: the real program's page, as headless Chromium renders it, draws the figures its `--json`
/// prints, and the same seed writes the same page byte for byte.
@Suite(
  "jetsam-sim's HTML report", .serialized, .timeLimit(.minutes(5)),
  .enabled(
    if: HeadlessChromium.isInstalled, "needs chromium (make test installs it)"),
  .offThePool)
struct SimReportPageTests {
  static var binary: String { Binaries.current.directory + "/jetsam-sim" }
  static let arguments = ["--apps", "2000", "--duration", "6h", "--seed", "9", "--json"]

  @Test func thePageRendersTheRunsFiguresAndTheSameSeedWritesTheSamePage() throws {
    let directory = NSTemporaryDirectory() + "jetsam-sim-page-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let first = try runCommand(Self.binary, Self.arguments + ["--html", directory + "/a.html"], timeout: .seconds(240))
    let second = try runCommand(
      Self.binary, Self.arguments + ["--html", directory + "/b.html"], timeout: .seconds(240))
    #expect(first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
    let page = try Data(contentsOf: URL(fileURLWithPath: directory + "/a.html"))
    #expect(page == (try Data(contentsOf: URL(fileURLWithPath: directory + "/b.html"))))
    #expect(first.stdout == second.stdout)

    let report = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
    let kills = try #require(report["kills"] as? [String: Any])
    let total = try #require(kills["total"] as? Int)
    let buckets = try #require(report["buckets"] as? [[String: Any]])
    let timeline = try #require((report["resident"] as? [String: Any])?["timeline"] as? [Any])
    // Kills and pressure came about, so that the page has bars and bands to draw.
    #expect(total > 0)
    let levelSlices = buckets.map { (($0["secondsAtLevel"] as? [String: Double]) ?? [:]).keys.count { $0 != "normal" } }
      .reduce(0, +)
    let killBars = buckets.map { (($0["killsByReason"] as? [String: Int]) ?? [:]).count }.reduce(0, +)
    #expect(levelSlices > 0)

    let dom = try HeadlessChromium.dumpDOM("file://\(directory)/a.html")
    #expect(dom.status == 0, "\(dom.stderr)")
    let body = try #require(dom.stdout.range(of: "<body[^>]*>", options: .regularExpression).map { dom.stdout[$0] })
    #expect(body.contains(#"data-ready="yes""#) && !body.contains("data-errors"), "\(body)")
    #expect(!dom.stderr.contains("Uncaught"), "\(dom.stderr)")
    #expect(body.contains(#"data-kills="\#(total)""#), "\(body)")
    #expect(body.contains(#"data-kill-bars="\#(killBars)""#), "\(body)")
    #expect(body.contains(#"data-levels="\#(levelSlices)""#), "\(body)")
    #expect(body.contains(#"data-points="\#(timeline.count)""#), "\(body)")
    #expect(body.contains(#"data-reasons="\#((kills["byReason"] as? [String: Int])?.count ?? -1)""#), "\(body)")
    #expect(body.contains(#"data-unsaved-kills="\#(kills["withUnsavedState"] as? Int ?? -1)""#), "\(body)")
  }
}
