import FoundationEssentials

/// A key the decoder did not expect, used to reject unknown config keys instead of silently ignoring them.
struct AnyCodingKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
}
