/// Why a text is not strict JSON (RFC 8259), and at which byte.
package struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
  /// The byte offset (from 0) where the text stops being JSON.
  package let offset: Int
  package let reason: String

  package var description: String { "\(reason) at byte \(offset)" }
}
