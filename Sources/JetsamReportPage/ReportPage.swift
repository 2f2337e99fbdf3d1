/// What the project's self-contained HTML reports share (the lab's run page, the simulator's page; the lab's JUnit
/// XML takes its escaping): the style sheet, the pressure palette, escaping, axis ticks and number formatting. Stdlib
/// only, so any report can use it; every output depends on its inputs alone (no locale, no clock), so the same
/// figures make the same page byte for byte.
public enum ReportPage {
  /// The pages' common style: body text, headings, tables, axis labels, the legend's swatches.
  public static let css = """
    body { font: 14px/1.4 system-ui, sans-serif; margin: 20px; color: #222; }
    h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
    table { border-collapse: collapse; } td, th { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: left; }
    td.number { text-align: right; font-variant-numeric: tabular-nums; }
    .axis { font-size: 11px; fill: #555; } .lane-name { font-size: 12px; fill: #222; }
    .legend span { display: inline-block; margin-right: 14px; } .swatch { display: inline-block; width: 12px;
      height: 12px; vertical-align: -2px; margin-right: 4px; }
    """

  /// The background of each pressure level above normal, by the level's name (normal has none).
  public static let pressureColours: [(level: String, colour: String)] = [
    ("warning", "#fff3c4"), ("urgent", "#ffd9a8"), ("critical", "#ffb3b3"),
  ]

  /// Distinct colours for series (apps, reasons), in turn.
  public static let seriesColours = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
  ]

  /// Text fit for an HTML or XML element or attribute (the pages, the lab's JUnit XML): markup characters as entities,
  /// control characters (which XML 1.0 cannot hold) as `?`.
  public static func escape(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      case "\n": out += "&#10;"
      case "\t": out += "&#9;"
      default:
        if scalar.value < 0x20 { out += "?" } else { out.unicodeScalars.append(scalar) }
      }
    }
    return out
  }

  /// `value` with `digits` decimals (rounded half away from zero), e.g. `fixed(2.345, 2)` is `2.35`; no locale.
  public static func fixed(_ value: Double, _ digits: Int = 1) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
    var scale = 1.0
    for _ in 0..<max(digits, 0) { scale *= 10 }
    let scaled = Int64((abs(value) * scale).rounded())
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard digits > 0 else { return sign + String(scaled) }
    let whole = scaled / Int64(scale)
    let fraction = String(scaled % Int64(scale))
    return sign + String(whole) + "." + String(repeating: "0", count: digits - fraction.count) + fraction
  }

  /// A whole number with thousands separated by commas: `12,345`.
  public static func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
      out.append(digit)
    }
    return (value < 0 ? "-" : "") + out
  }

  /// The step between axis ticks over `span` seconds: the smallest of the usual clock steps (a tenth of a second to
  /// 30 days) that keeps to at most `ticks` steps.
  public static func timeTick(_ span: Double, ticks: Int = 12) -> Double {
    let steps: [Double] = [
      0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
      172_800, 604_800, 1_209_600, 2_592_000,
    ]
    return steps.first { span / $0 <= Double(ticks) } ?? 2_592_000 * (span / 2_592_000 / Double(ticks)).rounded(.up)
  }

  /// The step between axis ticks over counts up to `span`: 1, 2 or 5 times a power of ten, at most `ticks` steps.
  public static func countTick(_ span: Double, ticks: Int = 5) -> Double {
    guard span.isFinite, span > 0 else { return 1 }
    var power = 1.0
    while true {
      for factor in [1.0, 2, 5] where span / (factor * power) <= Double(ticks) { return factor * power }
      power *= 10
    }
  }

  /// A time on an axis, in whole days, hours, minutes and seconds (`1d`, `6h`, `1h30m`, `1m15s`), or in seconds with a
  /// decimal when it is not whole (`0.5s`).
  public static func timeLabel(_ seconds: Double) -> String {
    guard seconds > 0 else { return "0" }
    guard seconds.rounded() == seconds else { return fixed(seconds, 1) + "s" }
    var rest = Int64(seconds)
    var label = ""
    for (unit, size) in [("d", 86_400 as Int64), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
      label += "\(rest / size)\(unit)"
      rest %= size
    }
    return label
  }
}
