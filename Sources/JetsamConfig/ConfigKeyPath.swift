/// How config and scenario errors write where a value is: `apps.mail.command[0]`; a key that is not a plain word is
/// quoted (`apps." "`), so that a blank or odd key still shows.
package enum ConfigKeyPath {
  /// `path` with an object's `key` after it.
  package static func appending(_ key: String, to path: String) -> String {
    let plain =
      !key.isEmpty
      && key.utf8.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || "0123456789_-.$".utf8.contains(byte)
      }
    let written = plain ? key : key.debugDescription
    return path.isEmpty ? written : path + "." + written
  }

  /// `path` with a list's item `index` after it.
  package static func appending(index: Int, to path: String) -> String { path + "[\(index)]" }

  /// The path of a decoding error's coding keys, or of a decoder's value (a scenario's `steps[3]`).
  package static func string(_ keys: [any CodingKey]) -> String {
    keys.reduce("") { path, key in
      key.intValue.map { appending(index: $0, to: path) } ?? appending(key.stringValue, to: path)
    }
  }
}
