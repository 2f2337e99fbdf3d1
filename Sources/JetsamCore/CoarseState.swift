/// The coarse state exit records, snapshots, CPU reports and `ps` name an app by, as MetricKit splits its exits:
/// `foreground`, `background`, `suspended`, `notRunning` (``LifecycleState/coarse``). Written as those words.
public enum CoarseState: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
  case foreground
  case background
  case suspended
  case notRunning

  public var description: String { rawValue }

  /// One of the four words; a lifecycle state's own name (`foregroundActive`) is taken as its coarse state, so that
  /// whatever an earlier version wrote still reads.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let word = try container.decode(String.self)
    guard let state = CoarseState(rawValue: word) ?? LifecycleState(rawValue: word)?.coarse else {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "\"\(word)\" is not a state (\(CoarseState.allCases.map(\.rawValue).joined(separator: ", ")))"
      )
    }
    self = state
  }
}
