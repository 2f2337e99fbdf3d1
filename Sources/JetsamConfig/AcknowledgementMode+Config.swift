import FoundationEssentials
import JetsamCore

extension AcknowledgementMode {
  /// The mode `text` names, or a config error at `key` that lists the modes.
  init<Key: CodingKey>(_ text: String, forKey key: Key, in container: KeyedDecodingContainer<Key>) throws {
    guard let mode = AcknowledgementMode(rawValue: text) else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: container, debugDescription: "\"\(text)\" is not one of auto, always, never")
    }
    self = mode
  }
}
