/// The value encoding of the app protocol (PROTOCOL.md, *Lines*).
///
/// Every byte of a value's UTF-8 form that is not an ASCII letter, digit, or one of `-._~:/+,@` is written `%XX`
/// with two uppercase hex digits, so an encoded value never contains a space, `=` or a newline.
enum PercentEncoding {
  /// Encodes a value for a `key=value` field.
  ///
  /// - Parameter value: Any text.
  /// - Returns: The text with every byte outside the unreserved set written as `%XX`.
  static func encode(_ value: String) -> String {
    var encoded: [UInt8] = []
    encoded.reserveCapacity(value.utf8.count)
    for byte in value.utf8 {
      if isUnreserved(byte) {
        encoded.append(byte)
      } else {
        encoded.append(UInt8(ascii: "%"))
        encoded.append(hexDigits[Int(byte >> 4)])
        encoded.append(hexDigits[Int(byte & 0x0F)])
      }
    }
    return String(decoding: encoded, as: UTF8.self)
  }

  /// Decodes a field's value.
  ///
  /// Hex digits may be of either case. Bytes outside the unreserved set that arrive unencoded are kept as they
  /// are (a lenient reader), and bytes that do not form UTF-8 become U+FFFD.
  ///
  /// - Parameter encoded: The value as it appears after `=`.
  /// - Returns: The decoded text, or `nil` if a `%` is not followed by two hex digits.
  static func decode(_ encoded: some StringProtocol) -> String? {
    let bytes = Array(encoded.utf8)
    var decoded: [UInt8] = []
    decoded.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "%") {
        guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
        else { return nil }
        decoded.append(high << 4 | low)
        index += 3
      } else {
        decoded.append(byte)
        index += 1
      }
    }
    return String(decoding: decoded, as: UTF8.self)
  }

  private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"),
      UInt8(ascii: "/"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: "@"):
      return true
    default:
      return false
    }
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    default: nil
    }
  }
}
