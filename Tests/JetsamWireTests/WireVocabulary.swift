import Foundation

/// The `vocabulary` of `Tests/Fixtures/wire-lines.json`: every word and field key each side of the app protocol
/// writes, every event name and error code, the values of the fields that take one of a few, and the environment
/// variables apps and their hooks start with, as written by hand in the table.
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
  var environment: Environment

  /// The values of `didFinishLaunching reason=` and `state=`, `stateDigest phase=`, `signpost phase=`,
  /// `memoryWarning level=` and `beginBackgroundTask kind=`.
  struct Values: Decodable, Sendable {
    var launchReason: [String]
    var launchState: [String]
    var digestPhase: [String]
    var signpostPhase: [String]
    var memoryWarningLevel: [String]
    var backgroundTaskKind: [String]
  }

  /// The `JETSAM_*` variables apps start with, and those their command hooks start with.
  struct Environment: Decodable, Sendable {
    var app: [String]
    var hook: [String]
  }

  /// The table's vocabulary.
  static func load() throws -> WireVocabulary {
    try JSONDecoder().decode(Table.self, from: Data(contentsOf: WireLineExample.tableURL)).vocabulary
  }

  private struct Table: Decodable {
    var vocabulary: WireVocabulary
  }
}
