import JetsamValues

/// An app's place in the kill order, as a value the victim index keeps sorted.
///
/// Its order is exactly ``VictimSelection/diesBefore(_:_:)``: lower band first, then the one longest in its band,
/// then the older process (an app without one last), then by name.
public struct VictimKey: Comparable, Hashable, Sendable {
  /// The app's effective band: lower dies first.
  public var band: Band
  /// When it entered that band: the longest there dies first.
  public var bandEnteredAt: Instant
  /// The process's spawn, or the end of time for an app without one (so it sorts last, as `diesBefore` has it).
  public var spawnedAt: Instant
  /// The app's name: the last tie-break, so the order is total.
  public var name: String

  /// The key of an app with these fields.
  public init(band: Band, bandEnteredAt: Instant, spawnedAt: Instant?, name: String) {
    self.band = band
    self.bandEnteredAt = bandEnteredAt
    self.spawnedAt = spawnedAt ?? Instant(nanoseconds: .max)
    self.name = name
  }

  /// The key of `app` as its status tells.
  public init(_ app: AppStatus) {
    self.init(band: app.band, bandEnteredAt: app.bandEnteredAt, spawnedAt: app.spawnedAt, name: app.name)
  }

  public static func < (a: VictimKey, b: VictimKey) -> Bool {
    if a.band != b.band { return a.band < b.band }
    if a.bandEnteredAt != b.bandEnteredAt { return a.bandEnteredAt < b.bandEnteredAt }
    if a.spawnedAt != b.spawnedAt { return a.spawnedAt < b.spawnedAt }
    return a.name < b.name
  }
}
