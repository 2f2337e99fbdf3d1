import Foundation

/// The simulation's own seeded generator (SplitMix64): the same seed gives the same draws on every machine and
/// every Swift release, which `SystemRandomNumberGenerator` (not seedable) and the standard library's
/// unspecified algorithms do not promise.
public struct SimRandom: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose draws depend on `seed` alone.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform draw in [0, 1), from the top 53 bits (our own arithmetic, so no library's algorithm decides it).
  public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

  /// A uniform integer in `0..<bound`.
  public mutating func below(_ bound: Int) -> Int { Int(unit() * Double(bound)) % max(bound, 1) }

  /// An exponential draw with mean `mean`: the waiting time of events that come at a constant rate.
  public mutating func exponential(mean: Double) -> Double { -mean * log1p(-unit()) }

  /// A log-normal draw with median `median` and shape `spread` (sigma of the log): memory use is skewed this way,
  /// most apps near the median and a few far above.
  public mutating func logNormal(median: Double, spread: Double) -> Double {
    // Box–Muller; 1 - unit() is never 0.
    let normal = (-2 * log(1 - unit())).squareRoot() * cos(2 * Double.pi * unit())
    return median * exp(spread * normal)
  }
}
