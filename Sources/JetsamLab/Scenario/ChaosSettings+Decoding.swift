import Foundation
import JetsamConfig
import JetsamCore

/// A scenario's `chaos` section (LABS.md, *Chaos*); its apps among the scenario's, which decoding is given as its
/// configuration (sorted: they are also the default).
extension ChaosSettings: DecodableWithConfiguration {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case seed, duration, apps, usage, spikes, kills, wakes
  }

  private enum UsageKeys: String, CodingKey, CaseIterable {
    case dwell, weights, home
  }

  /// The session written at `decoder`'s key path, over `apps` unless it names its own.
  public init(from decoder: any Decoder, configuration apps: [String]) throws {
    let c = try decoder.container(knownKeys: CodingKeys.self)
    guard c.contains(.duration) else { throw decoder.failure("duration: missing (how long the session lasts)") }
    self.init(
      seed: nil, duration: try c.superDecoder(forKey: .duration).duration(),
      apps: try c.readIfWritten(.apps) { try $0.appNames(in: Set(apps)) } ?? apps)
    seed = try c.readIfWritten(.seed) { seed in
      guard let number = try? UInt64(from: seed) else { throw seed.failure("expected a whole number, 0 or more") }
      return number
    }
    if c.contains(.usage) { try usage(c.superDecoder(forKey: .usage)) }
    spikes = try c.decodeIfWritten(Spikes.self, forKey: .spikes)
    kills = try c.decodeIfWritten(Kills.self, forKey: .kills)
    wakes = try c.decodeIfWritten(Wakes.self, forKey: .wakes)
  }

  /// How the user moves between the apps: `dwell`, `weights`, `home`.
  private mutating func usage(_ decoder: any Decoder) throws {
    let usage = try decoder.container(knownKeys: UsageKeys.self)
    dwell =
      try usage.readIfWritten(.dwell) { written in
        let (low, high) = try written.range { try $0.duration().seconds }
        guard low > 0, low <= high else { throw written.failure("expected 0 < low ≤ high") }
        return low...high
      } ?? dwell
    weights = try usage.readIfWritten(.weights) { try $0.appWeights(in: Set(apps)) } ?? weights
    home =
      try usage.readIfWritten(.home) { written in
        let chance = try Double(from: written)
        guard (0...1).contains(chance) else { throw written.failure("expected a chance from 0 to 1") }
        return chance
      } ?? home
  }
}

extension Decoder {
  /// `weights`: how often each app is picked, by app (one of `apps`, the session's).
  fileprivate func appWeights(in apps: Set<String>) throws -> [String: Double] {
    var weights: [String: Double] = [:]
    for (written, weight) in try namedValues("expected an object of app weights") {
      let app = try weight.appName(written, in: apps)
      let value = try Double(from: weight)
      guard value >= 0 else { throw weight.failure("expected a weight of 0 or more") }
      weights[app] = value
    }
    return weights
  }

}

extension KeyedDecodingContainer {
  /// A chaos section's `every` at `key` (the mean time between its events): required, a duration above 0.
  fileprivate func every(_ key: Key) throws -> Duration {
    guard contains(key) else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: codingPath, debugDescription: "every: missing"))
    }
    let written = try superDecoder(forKey: key)
    let every = try written.duration()
    guard every > .zero else { throw written.failure("must be above 0") }
    return every
  }
}

extension ChaosSettings.Spikes: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case every, size, `for`
  }

  /// The spikes written at `decoder`'s key path (`chaos.spikes`): `every`, and a `size` and a length (`for`), each one
  /// value or `[low, high]`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(knownKeys: CodingKeys.self)
    guard c.contains(.every), c.contains(.size), c.contains(.for) else {
      throw decoder.failure("spikes need every, size and for")
    }
    let sizes = try c.superDecoder(forKey: .size).range { try $0.size() }
    let lengths = try c.superDecoder(forKey: .for).range { try $0.duration().seconds }
    guard sizes.0 <= sizes.1, lengths.0 <= lengths.1 else { throw decoder.failure("a range's low is above its high") }
    self.init(every: try c.every(.every), size: sizes.0...sizes.1, length: lengths.0...lengths.1)
  }
}

extension ChaosSettings.Kills: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case every, reasons
  }

  /// The kills written at `decoder`'s key path (`chaos.kills`): `every`, and the `reasons` to draw from
  /// (`memoryPressure` unless told).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(knownKeys: CodingKeys.self)
    let every = try c.every(.every)
    let reasons = try c.readIfWritten(.reasons) { reasons in
      var list = try reasons.expecting("expected a list of exit reasons") { try reasons.unkeyedContainer() }
      var read: [ExitReason] = []
      while !list.isAtEnd { read.append(try list.superDecoder().exitReason()) }
      return read
    }
    self.init(every: every, reasons: reasons ?? [.memoryPressure])
  }
}

extension ChaosSettings.Wakes: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case every, apps
  }

  /// The wakes written at `decoder`'s key path (`chaos.wakes`): `every`, and at most how many `apps` at once (3 unless
  /// told).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(knownKeys: CodingKeys.self)
    self.init(
      every: try c.every(.every),
      apps: try c.readIfWritten(.apps) { try $0.wholeNumber(in: 1...1000) } ?? 3)
  }
}
