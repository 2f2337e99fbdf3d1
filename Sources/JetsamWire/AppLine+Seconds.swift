/// Durations on the wire: decimal seconds with a fraction of at most three digits' worth of precision
/// (`backgroundFor=12.045`, `validFor=30`, `seconds=4.5`).
extension AppLine {
  /// `duration` as decimal seconds with three decimals; a negative duration reads as `0.000`.
  public static func seconds(_ duration: Duration) -> String {
    let (whole, attoseconds) = duration.components
    let milliseconds = max(0, whole * 1000 + attoseconds / 1_000_000_000_000_000)
    let fraction = String(milliseconds % 1000)
    return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
  }

  /// Reads decimal seconds (digits, optionally a point and more digits), rounded to milliseconds; nil for
  /// anything else (signs, exponents, `inf`, `nan`) or more than `limit`.
  public static func duration(seconds text: String, limit: Duration) -> Duration? {
    var points = 0
    for byte in text.utf8 {
      if byte == UInt8(ascii: ".") {
        points += 1
      } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
        return nil
      }
    }
    let (limitSeconds, limitAttoseconds) = limit.components
    guard points <= 1, text.utf8.contains(where: { $0 != UInt8(ascii: ".") }), let seconds = Double(text),
      seconds <= Double(limitSeconds) + Double(limitAttoseconds) / 1e18
    else { return nil }
    return .milliseconds(Int64((seconds * 1000).rounded()))
  }

  /// The value of the first field with this key, as decimal seconds of at most `limit`.
  public func duration(_ field: AppProtocolField, limit: Duration = .seconds(366 * 24 * 3600)) -> Duration? {
    self[field].flatMap { Self.duration(seconds: $0, limit: limit) }
  }
}
