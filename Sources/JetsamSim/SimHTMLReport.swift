import JetsamReportPage

/// A simulation's report as one self-contained HTML page (inline SVG, CSS and script; no network), in the lab
/// report's look: the resident apps over time with the pressure levels behind them, the kills per time bucket by
/// reason, and the figures' tables.
///
/// A population of thousands cannot have the lab's lane per app, so the page draws aggregates only: the report's
/// buckets and resident timeline, both bounded whatever the duration and population. It is a function of the report
/// alone, so the same report makes the same page byte for byte.
///
/// Once its script has run, `<body>` carries what was drawn, for a test to read from a browser's DOM:
/// `data-ready="yes"`, `data-kills` (the kill bars' counts summed), `data-kill-bars`, `data-levels` (pressure band
/// slices), `data-points` (the resident line's points), `data-reasons` (rows of the reason table) and
/// `data-unsaved-kills`; a script error sets `data-errors`.
public enum SimHTMLReport {
  /// Drawing sizes, in SVG units (the lab's width and left margin).
  static let width = 1200.0
  static let left = 110.0
  static let right = 10.0
  static let residentHeight = 220.0
  static let killsHeight = 140.0
  /// The pressure levels drawn as bands, worst first (the worst is drawn at the top of its bucket's column).
  static let bandLevels = ["critical", "urgent", "warning"]
  static let levels = ["normal", "warning", "urgent", "critical"]

  /// The page for `report`.
  public static func html(_ report: SimReport) -> String {
    let reasons = report.kills.byReason.keys.sorted()
    var html = """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8">
      <title>jetsam-sim: \(e(report.model))</title>
      <style>
      \(ReportPage.css)
      </style></head>
      <body data-ready="no">
      <h1>jetsam-sim: \(e(report.model))</h1>
      <p id="run">model \(e(report.model)) · \(ReportPage.grouped(report.apps)) apps · \
      \(ReportPage.timeLabel(report.durationSeconds)) simulated (\(ReportPage.fixed(report.durationSeconds, 0)) s) · \
      seed \(report.seed) · \(ReportPage.grouped(report.policyEvents)) policy events</p>

      """
    html += "<h2>Resident apps and pressure</h2>\n<div class=\"legend\">"
    html += ##"<span><i class="swatch" style="background:#1f4e8c"></i>apps resident (holding memory)</span>"##
    for (level, colour) in ReportPage.pressureColours {
      html += #"<span><i class="swatch" style="background:\#(colour)"></i>pressure \#(level)</span>"#
    }
    html += "</div>\n" + residentChart(report) + "\n"
    html += "<h2>Kills per \(ReportPage.timeLabel(report.buckets.first?.seconds ?? 0)), by reason</h2>\n"
    html += "<div class=\"legend\">"
    for (index, reason) in reasons.enumerated() {
      html += #"<span><i class="swatch" style="background:\#(colour(index))"></i>\#(e(reason))</span>"#
    }
    html += "</div>\n" + killsChart(report, reasons: reasons) + "\n" + tables(report) + script
    return html
  }

  /// The resident apps as a line over the buckets' pressure, each bucket's column split by its time at each level.
  static func residentChart(_ report: SimReport) -> String {
    let plotTop = 10.0
    let plotBottom = residentHeight - 30
    let peak = Double(report.resident.timeline.map(\.apps).max() ?? 0)
    let (top, step) = scale(peak)
    func y(_ value: Double) -> Double { plotBottom - value / top * (plotBottom - plotTop) }
    var svg = ""
    for (index, bucket) in report.buckets.enumerated() where bucket.seconds > 0 {
      let x0 = x(bucket.startSeconds, report)
      let width = max(x(bucket.startSeconds + bucket.seconds, report) - x0, 0.5)
      var offset = plotTop
      for level in bandLevels {
        guard let seconds = bucket.secondsAtLevel[level], seconds > 0 else { continue }
        let height = seconds / bucket.seconds * (plotBottom - plotTop)
        svg +=
          #"<rect class="level" data-level="\#(level)" data-bucket="\#(index)" x="\#(f(x0))" y="\#(f(offset))" "#
          + #"width="\#(f(width))" height="\#(f(height))" fill="\#(pressureColour(level))"><title>"#
          + "\(ReportPage.timeLabel(bucket.startSeconds)): \(level) \(ReportPage.fixed(seconds, 1)) s of "
          + "\(ReportPage.fixed(bucket.seconds, 0)) s</title></rect>"
        offset += height
      }
    }
    svg += valueAxis(top: top, step: step, y: y, from: plotTop)
    let points = report.resident.timeline.map { "\(f(x($0.seconds, report))),\(f(y(Double($0.apps))))" }
    svg +=
      ##"<polyline class="resident-line" points="\##(points.joined(separator: " "))" fill="none" stroke="#1f4e8c" "##
      + #"stroke-width="1.5"><title>apps resident</title></polyline>"#
    svg += timeAxis(report, at: plotBottom) + #"<text x="4" y="\#(f(plotTop + 4))" class="axis">apps resident</text>"#
    return chart(id: "resident", height: residentHeight, svg)
  }

  /// The kills of each bucket as a bar, stacked by reason in `reasons`' order.
  static func killsChart(_ report: SimReport, reasons: [String]) -> String {
    let plotTop = 10.0
    let plotBottom = killsHeight - 30
    let peak = Double(report.buckets.map { $0.killsByReason.values.reduce(0, +) }.max() ?? 0)
    let (top, step) = scale(peak)
    func y(_ value: Double) -> Double { plotBottom - value / top * (plotBottom - plotTop) }
    var svg = valueAxis(top: top, step: step, y: y, from: plotTop)
    for (index, bucket) in report.buckets.enumerated() {
      let x0 = x(bucket.startSeconds, report)
      // A gap between bars where there is room for one.
      let full = x(bucket.startSeconds + bucket.seconds, report) - x0
      let width = max(full > 3 ? full - 1 : full, 0.5)
      var below = 0
      for (reasonIndex, reason) in reasons.enumerated() {
        guard let count = bucket.killsByReason[reason], count > 0 else { continue }
        svg +=
          #"<rect class="kill-bar" data-reason="\#(e(reason))" data-count="\#(count)" data-bucket="\#(index)" "#
          + #"x="\#(f(x0))" y="\#(f(y(Double(below + count))))" width="\#(f(width))" "#
          + #"height="\#(f(y(Double(below)) - y(Double(below + count))))" fill="\#(colour(reasonIndex))"><title>"#
          + "\(ReportPage.timeLabel(bucket.startSeconds)): \(count) \(e(reason))</title></rect>"
        below += count
      }
    }
    svg += timeAxis(report, at: plotBottom) + #"<text x="4" y="\#(f(plotTop + 4))" class="axis">kills</text>"#
    return chart(id: "kills", height: killsHeight, svg)
  }

  /// The figures: kills by reason and by state, launches, time at each level, resident apps.
  static func tables(_ report: SimReport) -> String {
    func share(_ part: Double, of whole: Double) -> String {
      whole > 0 ? ReportPage.fixed(part / whole * 100, 1) + " %" : "—"
    }
    func count(_ value: Int, id: String = "") -> String {
      #"<td class="number"\#(id.isEmpty ? "" : #" id="\#(id)""#)>\#(ReportPage.grouped(value))</td>"#
    }
    let kills = report.kills
    var html = "<h2>Kills</h2>\n<table id=\"kill-totals\">"
    html += "<tr><td>kills</td>\(count(kills.total, id: "total-kills"))</tr>"
    html += "<tr><td>of apps left with unsaved state</td>\(count(kills.withUnsavedState, id: "unsaved-kills"))</tr>"
    // One table per way of counting the kills, a row per value: `kind` names the table and the rows' attribute.
    for (kind, counts) in [("reason", kills.byReason), ("state", kills.byState)] {
      html += "</table>\n<h2>Kills by \(kind)</h2>\n<table id=\"kills-by-\(kind)\"><tr><th>\(kind)</th><th>kills</th>"
      html += "<th>share</th></tr>\n"
      for (name, value) in counts.sorted(by: { $0.key < $1.key }) {
        html +=
          "<tr data-\(kind)=\"\(e(name))\"><td>\(e(name))</td>\(count(value))<td class=\"number\">"
          + "\(share(Double(value), of: Double(kills.total)))</td></tr>\n"
      }
    }
    let launches = report.launches
    html += "</table>\n<h2>Launches</h2>\n<table id=\"launches\">\n"
    for (label, id, value) in [
      ("cold, by the user", "cold-by-user", launches.coldByUser),
      ("cold, into the background", "cold-in-background", launches.coldInBackground),
      ("cold after a jetsam kill (of those above)", "cold-after-jetsam", launches.coldAfterJetsam),
      ("warm returns (still running, no launch)", "warm-returns", launches.warmReturns),
      ("requests the policy refused", "refused-requests", report.refusedRequests),
    ] {
      html += "<tr data-launches=\"\(id)\"><td>\(label)</td>\(count(value))</tr>\n"
    }
    html += "</table>\n<h2>Time at each pressure level</h2>\n<table id=\"levels\">"
    html += "<tr><th>level</th><th>seconds</th><th>share</th></tr>\n"
    for level in levels {
      let seconds = report.secondsAtLevel[level] ?? 0
      let swatch =
        level == "normal" ? "" : #"<i class="swatch" style="background:\#(pressureColour(level))"></i>"#
      html +=
        "<tr data-level=\"\(level)\"><td>\(swatch)\(level)</td><td class=\"number\">"
        + "\(ReportPage.fixed(seconds, 1))</td><td class=\"number\">\(share(seconds, of: report.durationSeconds))"
        + "</td></tr>\n"
    }
    let resident = report.resident
    html += "</table>\n<h2>Resident apps</h2>\n<table id=\"resident-figures\">"
    html += "<tr><td>least (after the start)</td>\(count(resident.min))</tr>"
    html += "<tr><td>mean (over time)</td><td class=\"number\">\(ReportPage.fixed(resident.mean, 1))</td></tr>"
    html += "<tr><td>most</td>\(count(resident.max))</tr></table>\n"
    return html
  }

  /// Counts what was drawn into `<body>`'s data attributes (see the type's comment), last.
  static let script = """
    <script>
    "use strict";
    window.addEventListener("error", function (event) { document.body.dataset.errors = String(event.message); });
    (function () {
      var body = document.body;
      var kills = 0;
      var bars = document.querySelectorAll("#kills .kill-bar");
      bars.forEach(function (bar) { kills += Number(bar.getAttribute("data-count")); });
      var line = document.querySelector("#resident .resident-line");
      var points = line.getAttribute("points").trim();
      body.dataset.kills = String(kills);
      body.dataset.killBars = String(bars.length);
      body.dataset.levels = String(document.querySelectorAll("#resident .level").length);
      body.dataset.points = String(points === "" ? 0 : points.split(/\\s+/).length);
      body.dataset.reasons = String(document.querySelectorAll("#kills-by-reason tr[data-reason]").length);
      body.dataset.unsavedKills = document.getElementById("unsaved-kills").textContent.replace(/,/g, "");
      body.dataset.ready = "yes";
    })();
    </script>
    </body></html>

    """

  /// An SVG chart `height` high, the page's width.
  private static func chart(id: String, height: Double, _ svg: String) -> String {
    #"<svg id="\#(id)" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(f(width)) \#(f(height))" "#
      + #"width="\#(f(width))" height="\#(f(height))">\#(svg)</svg>"#
  }

  /// The horizontal position of `seconds` of simulated time.
  private static func x(_ seconds: Double, _ report: SimReport) -> Double {
    let duration = max(report.durationSeconds, 0.001)
    return left + min(max(seconds / duration, 0), 1) * (width - left - right)
  }

  /// The value axis's top (a whole number of steps at or above `peak`, at least one step) and its step.
  private static func scale(_ peak: Double) -> (top: Double, step: Double) {
    let step = ReportPage.countTick(peak)
    return (max((peak / step).rounded(.up), 1) * step, step)
  }

  /// Grid lines and labels of the value axis, from 0 to `top`.
  private static func valueAxis(top: Double, step: Double, y: (Double) -> Double, from plotTop: Double) -> String {
    var svg = ""
    var value = 0.0
    while value <= top + step / 2 {
      let lineY = f(y(value))
      svg +=
        ##"<line x1="\##(f(left))" y1="\##(lineY)" x2="\##(f(width - right))" y2="\##(lineY)" stroke="#ddd"/>"##
        + #"<text x="\#(f(left - 6))" y="\#(f(y(value) + 4))" class="axis" text-anchor="end">"#
        + "\(ReportPage.grouped(Int(value)))</text>"
      value += step
    }
    return svg
  }

  /// The time axis at `axisY`: a rule and labelled ticks at a clock step.
  private static func timeAxis(_ report: SimReport, at axisY: Double) -> String {
    var svg =
      ##"<line x1="\##(f(left))" y1="\##(f(axisY))" x2="\##(f(width - right))" y2="\##(f(axisY))" stroke="#333"/>"##
    let step = ReportPage.timeTick(report.durationSeconds)
    var tick = 0
    while Double(tick) * step <= report.durationSeconds + 1e-9 {
      let seconds = Double(tick) * step
      let tickX = f(x(seconds, report))
      svg +=
        ##"<line x1="\##(tickX)" y1="\##(f(axisY))" x2="\##(tickX)" y2="\##(f(axisY + 4))" stroke="#333"/>"##
        + #"<text x="\#(tickX)" y="\#(f(axisY + 16))" class="axis" text-anchor="middle">"#
        + "\(ReportPage.timeLabel(seconds))</text>"
      tick += 1
    }
    return svg
  }

  private static func pressureColour(_ level: String) -> String {
    ReportPage.pressureColours.first { $0.level == level }?.colour ?? "#eee"
  }

  private static func colour(_ index: Int) -> String {
    ReportPage.seriesColours[index % ReportPage.seriesColours.count]
  }

  private static func f(_ value: Double) -> String { ReportPage.fixed(value, 1) }

  private static func e(_ text: String) -> String { ReportPage.escape(text) }
}
