import JetsamValues

/// A suspended app's latest memory reading, holding until the next one (or the end of the suspension) gives it its
/// weight in the average.
struct HeldMemoryReading: Sendable, Equatable {
  var at: Instant
  var bytes: Int64
}
