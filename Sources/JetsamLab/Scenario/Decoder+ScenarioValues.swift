import JetsamConfig
import JetsamCore
import JetsamProtocol

/// How a scenario reads its values through the config module's decoder (``JSONTreeDecoder``): the lab's own
/// notations (durations, sizes, shell lines, ranges), each refused in the words LABS.md uses. An error is a
/// `DecodingError` at the value's key path; ``ScenarioLoader`` names the file and quotes the value as written.
extension Decoder {
  /// An error about this value: `reason`, at its key path.
  func failure(_ reason: String) -> DecodingError {
    .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: reason))
  }

  /// What `read` makes of this value; when the value is of another JSON type than `read` takes (or null), `expected`,
  /// which says what a scenario wants here in its own words rather than the bare type. Errors about values inside
  /// this one keep their own.
  func expecting<T>(_ expected: String, _ read: () throws -> T) throws -> T {
    do {
      return try read()
    } catch DecodingError.typeMismatch(_, let context) where context.codingPath.count == codingPath.count {
      throw failure(expected)
    } catch DecodingError.valueNotFound(_, let context) where context.codingPath.count == codingPath.count {
      throw failure(expected)
    }
  }

  /// The values of an object whose keys are names of the scenario's choosing (apps, hooks, hosts, weights), in the
  /// order of the names; `expected` when this is not an object.
  func namedValues(_ expected: String) throws -> [(name: String, value: any Decoder)] {
    let object = try expecting(expected) { try container(keyedBy: AnyCodingKey.self) }
    return try object.allKeys.sorted { $0.stringValue < $1.stringValue }.map { key in
      (key.stringValue, try object.superDecoder(forKey: key))
    }
  }

  /// A duration: `500ms`, `10s`, `2m`, or a number of seconds.
  func duration() throws -> Duration {
    let value = try singleValueContainer()
    let parsed: ConfigDuration? =
      if let text = try? value.decode(String.self) {
        ConfigDuration(parsing: text)
      } else if let seconds = try? value.decode(Int64.self) {
        ConfigDuration(parsing: String(seconds))
      } else if let seconds = try? value.decode(Double.self) {
        ConfigDuration(parsing: String(seconds))
      } else {
        nil
      }
    guard let parsed else { throw failure("expected a duration such as 500ms, 10s or 2m") }
    return parsed.duration
  }

  /// A size above 0 in bytes: `512M`, `1.5G`, or a whole number of bytes.
  func size() throws -> Int64 {
    let value = try singleValueContainer()
    let parsed: ByteSize? =
      if let text = try? value.decode(String.self) {
        ByteSize(parsing: text)
      } else if let bytes = try? value.decode(Int64.self), bytes > 0 {
        ByteSize(bytes: bytes)
      } else {
        nil
      }
    guard let parsed, parsed.bytes > 0 else { throw failure("expected a size such as 512M or 1.5G") }
    return parsed.bytes
  }

  /// A whole number within `range`.
  func wholeNumber(in range: ClosedRange<Int>) throws -> Int {
    guard let number = try? singleValueContainer().decode(Int.self), range.contains(number) else {
      throw failure("expected a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    return number
  }

  /// One shell command line, as `/bin/sh -c LINE` (as `jetsamctl launch --ready` has it).
  func shellLine() throws -> [String] {
    let line = try expecting("expected a command line (a string, run by /bin/sh -c)") {
      try singleValueContainer().decode(String.self)
    }
    guard !line.allSatisfy(\.isWhitespace) else { throw failure("the command is empty") }
    return ["/bin/sh", "-c", line]
  }

  /// An exit reason by its name (`memoryPressure`).
  func exitReason() throws -> ExitReason {
    guard let text = try? singleValueContainer().decode(String.self), let reason = ExitReason(rawValue: text) else {
      throw failure("not an exit reason (\(ExitReason.allCases.map(\.rawValue).joined(separator: ", ")))")
    }
    return reason
  }

  /// A range written as one value or `[low, high]`, each end read by `read`.
  func range<T>(_ read: (any Decoder) throws -> T) throws -> (T, T) {
    guard var pair = try? unkeyedContainer() else {
      let one = try read(self)
      return (one, one)
    }
    guard pair.count == 2 else { throw failure("expected one value or [low, high]") }
    let low = try read(pair.superDecoder())
    return (low, try read(pair.superDecoder()))
  }
}
