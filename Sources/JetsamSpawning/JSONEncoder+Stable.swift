import FoundationEssentials

extension JSONEncoder {
  /// The encoder of the JSON jetsamd writes (exit records, the state file, control answers, spawner messages):
  /// keys sorted, so that equal values give equal bytes, and slashes unescaped, so that paths read as paths.
  /// A new one each time: an encoder is not shared between threads.
  package static var stable: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }
}
