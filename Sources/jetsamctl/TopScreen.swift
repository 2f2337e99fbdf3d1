import Foundation
import JetsamCore
import JetsamProtocol

/// One frame of `top` as lines of text: a header, the apps, the latest exits and the keys.
struct TopScreen {
  struct Line {
    enum Style { case plain, header }
    var text: String
    var style: Style
  }

  let model: TopModel
  let width: Int
  /// Rows of the terminal; nil: every app (plain mode).
  let height: Int?

  /// Cells of the memory bar: the app's share of the device's RAM.
  static let barCells = 20

  func lines(now: Int64) -> [Line] {
    var lines: [Line] = []
    let forced = model.charging ? " · charging" : ""
    lines.append(
      Line(
        text:
          "jetsam top · \(model.rows.count) app\(model.rows.count == 1 ? "" : "s") · pressure \(model.level.name) · "
          + "\(ByteSize.format(model.availableBytes)) of \(ByteSize.format(model.ramBytes)) available\(forced) · "
          + "sort \(model.sort.rawValue)\(model.reversed ? " (reversed)" : "")"
          + (model.filter.isEmpty ? "" : " · filter \"\(model.filter)\""),
        style: .plain))
    let header = ["NAME", "PID", "STATE", "BAND", "MEMORY", "OF DEVICE", "IN STATE", "LAUNCH"]
    var table = model.shownRows.map { row in
      [
        row.name, row.pid.map(String.init) ?? "-", row.state.rawValue, row.band.description,
        ByteSize.format(row.memoryBytes), bar(row.memoryBytes), Self.age(seconds: Double(now - row.stateSince) / 1e9),
        String(row.launch),
      ]
    }
    let exitLines = min(model.exits.count, TopModel.exitsShown)
    if let height {
      // Title, header, exits title and its lines, the keys line.
      let room = max(1, height - 4 - exitLines)
      if table.count > room {
        table = Array(table.prefix(room - 1)) + [["… \(table.count - room + 1) more"] + Array(repeating: "", count: 7)]
      }
    }
    let widths = (0..<header.count).map { column in ([header] + table).map { $0[column].count }.max() ?? 0 }
    func format(_ cells: [String]) -> String {
      cells.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
        .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }
    lines.append(Line(text: format(header), style: .header))
    lines += table.map { Line(text: format($0), style: .plain) }
    lines.append(Line(text: "LATEST EXITS", style: .header))
    for record in model.exits.prefix(exitLines) {
      let time = record.time.split(separator: "T").last.map { String($0.prefix(12)) } ?? record.time
      lines.append(
        Line(
          text:
            "\(time)  \(record.app) #\(record.launch)  \(record.cause.reason.rawValue)  in \(record.lifecycle.state)  "
            + ByteSize.format(record.usage.memoryBytes),
          style: .plain))
    }
    if model.exits.isEmpty { lines.append(Line(text: "none yet", style: .plain)) }
    if height != nil {
      lines.append(Line(text: "s sort  r reverse  / filter  q quit", style: .plain))
    }
    return lines
  }

  /// The app's share of the device's RAM as a bar of ``barCells`` cells.
  private func bar(_ bytes: Int64) -> String {
    guard model.ramBytes > 0 else { return "" }
    let share = Double(bytes) / Double(model.ramBytes)
    let filled = bytes > 0 ? max(1, min(Self.barCells, Int((share * Double(Self.barCells)).rounded()))) : 0
    return String(repeating: "█", count: filled) + String(repeating: "·", count: Self.barCells - filled)
  }

  /// `12.3s`, `4m05s`, `2h10m`.
  static func age(seconds: Double) -> String {
    let s = max(0, seconds)
    if s < 60 { return String(format: "%.1fs", s) }
    if s < 3600 { return String(format: "%dm%02ds", Int(s) / 60, Int(s) % 60) }
    return String(format: "%dh%02dm", Int(s) / 3600, Int(s) % 3600 / 60)
  }
}
