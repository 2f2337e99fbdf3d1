import JetsamConfig
import JetsamProtocol
import JetsamShell

/// Sizes (`ByteSize`) and durations (`ConfigDuration`) from text: a value in range or nil, for any text.
enum SizeFuzzing {
  static func run(_ text: String) {
    if let size = ByteSize(parsing: text) {
      precondition((0...ByteSize.maximum).contains(size.bytes), "ByteSize out of range: \(size.bytes) from \(text)")
    }
    if let duration = ConfigDuration(parsing: text) {
      precondition(
        duration.duration >= .zero && duration.duration <= .seconds(ConfigDuration.maximumSeconds),
        "ConfigDuration out of range: \(duration.duration) from \(text)")
    }
  }
}
