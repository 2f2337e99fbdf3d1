import Foundation
import JetsamValues

/// The simulation's seeded draws (``SplitMix64``): the same seed gives the same run on every machine.
public struct SimRandom: RandomNumberGenerator, Sendable {
  private var generator: SplitMix64

  /// A generator whose draws depend on `seed` alone.
  public init(seed: UInt64) { generator = SplitMix64(state: seed) }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 { generator.next() }

  /// A uniform draw in [0, 1).
  public mutating func unit() -> Double { generator.unit() }

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
