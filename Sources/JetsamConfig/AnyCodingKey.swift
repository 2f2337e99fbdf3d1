import FoundationEssentials

/// Any key of an object: one the decoder did not expect (unknown config keys are rejected, not silently ignored), or
/// one whose name is the value's own (a scenario's apps, hosts, hooks).
package struct AnyCodingKey: CodingKey {
  package var stringValue: String
  package var intValue: Int?
  package init(stringValue: String) { self.stringValue = stringValue }
  package init?(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
}
