/// The value encoding of the app protocol (PROTOCOL.md, *Lines*).
///
/// Writers encode every byte of a value's UTF-8 form that is not an ASCII letter, digit or one of `-._~:/+,@` as
/// `%XX` (uppercase hex), so an encoded value never holds a space, `=`, a control byte or a newline. Readers
/// decode `%XX` of either case and keep other printable bytes as they came.
extension AppLine {
  /// Encodes a value for a `key=value` field: every byte outside the unreserved set becomes `%XX`.
  public static func percentEncode(_ value: String) -> String {
    var encoded: [UInt8] = []
    encoded.reserveCapacity(value.utf8.count)
    for byte in value.utf8 {
      if unreserved.contains(byte) {
        encoded.append(byte)
      } else {
        encoded += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
      }
    }
    return String(decoding: encoded, as: UTF8.self)
  }

  /// Decodes a value as it appears after `=`; nil where a line holding it would be refused: a `%` without two
  /// hex digits, an unencoded space or control byte, or bytes that are not UTF-8 once decoded.
  public static func percentDecode(_ value: Substring) -> String? {
    let bytes = Array(value.utf8)
    return try? decodeValue(bytes[...])
  }

  /// Decodes a value; the error carries the index, in `encoded`, of the byte at fault.
  static func decodeValue(_ encoded: ArraySlice<UInt8>) throws(ValueDecodingError) -> String {
    var decoded: [UInt8] = []
    // Where each decoded byte came from, to point at the escape behind a byte that breaks UTF-8.
    var origins: [Int] = []
    decoded.reserveCapacity(encoded.count)
    origins.reserveCapacity(encoded.count)
    var index = encoded.startIndex
    while index < encoded.endIndex {
      let byte = encoded[index]
      if byte == UInt8(ascii: "%") {
        guard index + 2 < encoded.endIndex, let high = hexValue(encoded[index + 1]),
          let low = hexValue(encoded[index + 2])
        else { throw ValueDecodingError(problem: .malformedEscape, index: index) }
        decoded.append(high << 4 | low)
        origins.append(index)
        index += 3
      } else if byte <= UInt8(ascii: " ") || byte == 0x7F {
        // A control byte unencoded is damage (a CR from a CRLF line end, a stray tab), not data.
        throw ValueDecodingError(problem: .unencodedByte(byte), index: index)
      } else {
        decoded.append(byte)
        origins.append(index)
        index += 1
      }
    }
    if let invalid = firstInvalidUTF8Offset(in: decoded) {
      throw ValueDecodingError(problem: .notUTF8, index: origins[invalid])
    }
    return String(decoding: decoded, as: UTF8.self)
  }

  /// Why a value could not be decoded, and the index of the byte at fault.
  struct ValueDecodingError: Error {
    var problem: AppLineError.Problem
    var index: Int
  }

  private static let unreserved = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/+,@".utf8)
  static let hexDigits = Array("0123456789ABCDEF".utf8)

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    default: nil
    }
  }
}
