/// Where a JSON5 text (https://spec.json5.org) stops being JSON5, and why: a config error must say where.
struct JSON5SyntaxError: Error, Equatable, CustomStringConvertible {
  /// 1-based line and column (in bytes) of the first byte that cannot be JSON5.
  var line: Int
  var column: Int
  var message: String

  var description: String { "line \(line), column \(column): \(message)" }

  /// The first syntax error in `bytes` (UTF-8), or nil when it is JSON5 (with a single value at the top level).
  static func find(in bytes: [UInt8]) -> JSON5SyntaxError? {
    do throws(JSON5SyntaxError) {
      _ = try JSON5Parser.parse(bytes)
      return nil
    } catch {
      return error
    }
  }

  /// The 1-based line and column of byte `offset` of `bytes`.
  static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
    var line = 1
    var lineStart = 0
    for position in 0..<min(offset, bytes.count) where bytes[position] == UInt8(ascii: "\n") {
      line += 1
      lineStart = position + 1
    }
    return (line, offset - lineStart + 1)
  }
}
