/// Where a `signpost` line falls (PROTOCOL.md, *Signposts*): the start or the end of an interval of that name, or a
/// single point. One definition for jetsamd and the Swift client.
public enum SignpostPhase: String, Sendable, Equatable, Codable, CaseIterable {
  case begin, end, event
}
