import Foundation
import Testing

/// One entry of `Tests/Fixtures/wire-lines.json`, the table of lines that the Swift and Python readers share.
struct WireLineExample: Decodable, Sendable, CustomTestStringConvertible {
  /// The line as text, when it is UTF-8.
  var line: String?
  /// The line as hex bytes, when it is not.
  var lineHex: String?
  var valid: Bool
  var word: String?
  var fields: [[String]]?
  var error: String?

  /// Every example in the table.
  static func all() throws -> [WireLineExample] {
    try JSONDecoder().decode(Table.self, from: Data(contentsOf: tableURL)).lines
  }

  /// `Tests/Fixtures/wire-lines.json`.
  static let tableURL = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appending(path: "Fixtures/wire-lines.json")

  private struct Table: Decodable {
    var lines: [WireLineExample]
  }

  /// The line's bytes, without a newline.
  var bytes: [UInt8] {
    if let line { return Array(line.utf8) }
    let hex = Array(lineHex ?? "")
    return stride(from: 0, to: hex.count, by: 2).map { UInt8(String(hex[$0...$0 + 1]), radix: 16)! }
  }

  /// The decoded fields as the pairs `AppLine` is built from.
  var fieldPairs: [(String, String)] {
    (fields ?? []).map { ($0[0], $0[1]) }
  }

  var testDescription: String {
    line.map { String(reflecting: $0) } ?? "bytes \(lineHex ?? "")"
  }
}
