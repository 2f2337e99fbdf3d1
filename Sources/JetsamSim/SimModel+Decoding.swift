import FoundationEssentials
import JetsamConfig

/// A model file's keys, read as the config's are (``JSONTreeDecoder``): unknown keys refused, every number checked
/// against its range, the defaults of a phone where a key is left out.
extension SimModel: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case name, ramMiB, systemMiB, warning, urgent, critical, hysteresis, foregroundSlots, apps, switchSeconds,
      popularity, backgroundLaunchSeconds, kinds
  }

  /// The model a file describes; its `name` is empty when the file gives none (``SimModelLoader`` names it after
  /// the file).
  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
    if c.contains(.name) && name.isEmpty {
      throw DecodingError.dataCorruptedError(forKey: .name, in: c, debugDescription: "is not a non-empty string")
    }
    ramMiB = try c.decodeNumber(.ramMiB, in: 64...1_048_576)
    systemMiB = try c.decodeNumber(.systemMiB, default: 0, in: 0...(ramMiB - 1))
    warning = try c.decodeNumber(.warning, default: 0.25, in: 0...1)
    urgent = try c.decodeNumber(.urgent, default: 0.15, in: 0...1)
    critical = try c.decodeNumber(.critical, default: 0.08, in: 0...1)
    hysteresis = try c.decodeNumber(.hysteresis, default: 0.03, in: 0...0.5)
    foregroundSlots = Int(try c.decodeNumber(.foregroundSlots, default: 1, in: 1...8))
    apps = Int(try c.decodeNumber(.apps, default: 200, in: 1...10_000_000))
    switchSeconds = try c.decodeNumber(.switchSeconds, default: 60, in: 0.1...86_400)
    popularity = try c.decodeNumber(.popularity, default: 1, in: 0...5)
    backgroundLaunchSeconds = try c.decodeNumber(.backgroundLaunchSeconds, default: 300, in: 0.1...86_400)
    kinds = try c.decode([AppKind].self, forKey: .kinds)
    if kinds.isEmpty {
      throw DecodingError.dataCorruptedError(
        forKey: .kinds, in: c, debugDescription: "is empty (at least one kind of app is needed)")
    }
    guard critical < urgent, urgent < warning else {
      throw DecodingError.dataCorruptedError(
        forKey: .critical, in: c,
        debugDescription: "the levels must rise: critical \(critical) < urgent \(urgent) < warning \(warning)")
    }
  }
}

extension SimModel.AppKind: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case name, share, memoryMedianMiB, memorySpread, suspendedFraction, launchSeconds, backgroundSeconds,
      unsavedChance, bandFloor
  }

  /// The bands a kind may be lifted to.
  private static let floors = ["mail", "audio", "critical"]

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    name = try c.decode(String.self, forKey: .name)
    if name.isEmpty {
      throw DecodingError.dataCorruptedError(forKey: .name, in: c, debugDescription: "is not a non-empty string")
    }
    share = try c.decodeNumber(.share, default: 1, in: 0.000_001...1_000_000)
    memoryMedianMiB = try c.decodeNumber(.memoryMedianMiB, in: 1...65_536)
    memorySpread = try c.decodeNumber(.memorySpread, default: 0.4, in: 0...3)
    suspendedFraction = try c.decodeNumber(.suspendedFraction, default: 0.4, in: 0...1)
    launchSeconds = try c.decodeNumber(.launchSeconds, default: 1, in: 0...600)
    backgroundSeconds = try c.decodeNumber(.backgroundSeconds, default: 10, in: 0...86_400)
    unsavedChance = try c.decodeNumber(.unsavedChance, default: 0, in: 0...1)
    bandFloor = try c.decodeIfPresent(String.self, forKey: .bandFloor)
    if let bandFloor, !Self.floors.contains(bandFloor) {
      throw DecodingError.dataCorruptedError(
        forKey: .bandFloor, in: c,
        debugDescription: "\"\(bandFloor)\" is not one of \(Self.floors.joined(separator: ", "))")
    }
  }
}
