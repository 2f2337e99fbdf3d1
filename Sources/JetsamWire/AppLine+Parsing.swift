/// Reading lines by the rule of PROTOCOL.md, *Lines*: jetsamd and the Swift client take lines apart here alone.
extension AppLine {
  /// Takes a line apart, or says precisely what is wrong with it.
  ///
  /// - Parameter text: The line, without its newline.
  /// - Throws: ``AppLineError`` naming the first word or field that breaks the rule, and the column at fault.
  public init(parsing text: some StringProtocol) throws(AppLineError) {
    try self.init(parsing: Array(text.utf8))
  }

  /// Takes a line apart from the bytes read, so that bytes that are not UTF-8 are refused rather than replaced.
  ///
  /// - Parameter bytes: The line, without its newline.
  /// - Throws: ``AppLineError`` naming the first word or field that breaks the rule, and the column at fault.
  public init(parsing bytes: some Collection<UInt8>) throws(AppLineError) {
    let bytes = Array(bytes)
    let parts = Self.spaceSeparatedParts(of: bytes)
    guard let word = parts.first else { throw AppLineError(.noWord, field: nil, column: 1, part: []) }
    if let bad = word.firstIndex(where: { !Self.isASCIILetter($0) }) {
      throw AppLineError(.wordNotLetters, field: nil, column: bad + 1, part: Array(word))
    }
    self.init(String(decoding: word, as: UTF8.self))
    fields = try Self.parseFields(parts.dropFirst())
  }

  /// Takes apart `key=value` fields without a word, such as `$JETSAM_PREVIOUS_EXIT`, by the same rule.
  ///
  /// - Parameter text: The fields, separated by spaces.
  /// - Returns: The fields in order, values decoded.
  /// - Throws: ``AppLineError`` naming the first field that breaks the rule; fields count from 1.
  public static func parseFields(_ text: some StringProtocol) throws(AppLineError) -> [Field] {
    try parseFields(spaceSeparatedParts(of: Array(text.utf8))[...])
  }

  private static func parseFields(_ parts: ArraySlice<ArraySlice<UInt8>>) throws(AppLineError) -> [Field] {
    var fields: [Field] = []
    for (offset, part) in parts.enumerated() {
      let number = offset + 1
      guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else {
        throw AppLineError(.fieldWithoutEquals, field: number, column: part.startIndex + 1, part: Array(part))
      }
      guard equals != part.startIndex else {
        throw AppLineError(.emptyKey, field: number, column: equals + 1, part: Array(part))
      }
      let key = part[..<equals]
      if let bad = key.firstIndex(where: { !isASCIILetter($0) }) {
        throw AppLineError(.keyNotLetters, field: number, column: bad + 1, part: Array(part))
      }
      do {
        let value = try decodeValue(part[(equals + 1)...])
        fields.append((key: String(decoding: key, as: UTF8.self), value: value))
      } catch {
        throw AppLineError(error.problem, field: number, column: error.index + 1, part: Array(part))
      }
    }
    return fields
  }

  // Runs of spaces, and spaces before the word or after the last field, separate nothing. Slices keep their
  // indices into the line, which become the columns of errors.
  private static func spaceSeparatedParts(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    bytes.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
  }

  private static func isASCIILetter(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
  }
}
