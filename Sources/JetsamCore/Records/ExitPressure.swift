/// The device's memory pressure at an app's exit, and for jetsam's victim the snapshot taken when it was chosen.
/// For a kill the figures are those of its decision (``KillInFlight``), not of the moment the exit was seen.
public struct ExitPressure: Hashable, Sendable {
  /// The device's pressure level (`pressureLevel` on disk).
  public var level: PressureLevel
  /// Bytes available to the device at the last sample (`deviceAvailableBytes` on disk).
  public var availableBytes: Int64
  /// Every app at the moment jetsam chose this app as its victim (XNU's jetsam snapshot); nil otherwise.
  public var snapshot: [SnapshotEntry]?

  /// The pressure at the exit, and jetsam's snapshot if it chose the app.
  public init(level: PressureLevel, availableBytes: Int64, snapshot: [SnapshotEntry]? = nil) {
    self.level = level
    self.availableBytes = availableBytes
    self.snapshot = snapshot
  }

  /// The pressure jetsam sees now (an exit no kill of jetsamd's explains).
  init(_ pressure: DevicePressure) {
    self.init(level: pressure.level, availableBytes: pressure.availableBytes)
  }

  /// The pressure a kill was decided under, with its snapshot.
  public init(_ decision: KillInFlight) {
    self.init(level: decision.level, availableBytes: decision.availableBytes, snapshot: decision.snapshot)
  }
}

extension ExitPressure {
  /// The pressure as a record's flat keys hold it.
  init(from record: KeyedDecodingContainer<ExitRecord.CodingKeys>) throws {
    self.init(
      level: try record.decode(PressureLevel.self, forKey: .pressureLevel),
      availableBytes: try record.decode(Int64.self, forKey: .deviceAvailableBytes),
      snapshot: try record.decodeIfPresent([SnapshotEntry].self, forKey: .snapshot))
  }

  /// Writes the pressure into the record's flat keys.
  func encode(to record: inout KeyedEncodingContainer<ExitRecord.CodingKeys>) throws {
    try record.encode(level, forKey: .pressureLevel)
    try record.encode(availableBytes, forKey: .deviceAvailableBytes)
    try record.encodeIfPresent(snapshot, forKey: .snapshot)
  }
}
