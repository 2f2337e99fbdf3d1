import FoundationEssentials
import JetsamWire

/// A JSON5 file read into an object, with where each of its values is written: an error about a value then quotes it
/// as written (`1e300`, `Infinity`, `"12Q"`) and names its file.
package struct JSON5Document: Sendable {
  /// The file's name, as errors name it.
  package let file: String
  /// The top-level object.
  package let object: [String: JSONTree]
  private let source: [UInt8]
  /// Where each value is written, by key path (``ConfigKeyPath``).
  private let spans: [String: Range<Int>]

  /// Reads `bytes` as a config file is read: UTF-8, JSON5, an object at the top level.
  ///
  /// - Throws: an error naming the line and column.
  package init(bytes: [UInt8], file: String) throws(ConfigError) {
    func failure(at offset: Int, _ reason: String) -> ConfigError {
      let position = JSON5SyntaxError.position(of: offset, in: bytes)
      return ConfigError(file: file, line: position.line, column: position.column, reason: reason)
    }
    if let offset = firstInvalidUTF8Offset(in: bytes) {
      throw failure(at: offset, "not UTF-8 text: an invalid byte at offset \(offset)")
    }
    let parsed: (value: JSONTree, spans: [String: Range<Int>])
    do throws(JSON5SyntaxError) {
      parsed = try JSON5Parser.parse(bytes)
    } catch {
      throw ConfigError(
        file: file, line: error.line, column: error.column, reason: "not valid JSON5 at \(error)")
    }
    guard case .object(let object) = parsed.value else {
      throw failure(at: parsed.spans[""]?.lowerBound ?? 0, "the top level must be an object")
    }
    self.file = file
    self.object = object
    source = bytes
    spans = parsed.spans
  }

  /// Whether a value is written at `keyPath`.
  package func contains(_ keyPath: String) -> Bool { spans[keyPath] != nil }

  /// `reason` for the value at `keyPath`, with the value as written after it unless the reason already quotes it
  /// (or nothing is written there).
  package func reason(_ reason: String, at keyPath: String) -> String {
    guard let span = spans[keyPath] else { return reason }
    var written = String(decoding: source[span], as: UTF8.self)
    if let lineBreak = written.firstIndex(where: \.isNewline) { written = written[..<lineBreak] + "…" }
    if written.count > 60 { written = written.prefix(60) + "…" }
    return reason.contains(written) ? reason : "\(reason) (written: \(written))"
  }
}
