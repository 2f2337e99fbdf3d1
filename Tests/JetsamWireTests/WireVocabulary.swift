import Foundation

/// The `vocabulary` of `Tests/Fixtures/wire-lines.json`: every word and field key each side of the app protocol
/// writes, every event name and error code, and the values of the fields that take one of a few, as written by
/// hand in the table.
struct WireVocabulary: Decodable, Sendable {
  /// The words and keys of one direction.
  struct Direction: Decodable, Sendable {
    var words: [String]
    var fields: [String]
  }

  var appToDaemon: Direction
  var daemonToApp: Direction
  var events: [String]
  var errorCodes: [String]
  var values: Values

  /// The values of `didFinishLaunching reason=` and `state=`, `stateDigest phase=` and `signpost phase=`.
  struct Values: Decodable, Sendable {
    var launchReason: [String]
    var launchState: [String]
    var digestPhase: [String]
    var signpostPhase: [String]
  }

  /// The table's vocabulary.
  static func load() throws -> WireVocabulary {
    try JSONDecoder().decode(Table.self, from: Data(contentsOf: WireLineExample.tableURL)).vocabulary
  }

  private struct Table: Decodable {
    var vocabulary: WireVocabulary
  }
}
