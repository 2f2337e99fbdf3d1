/// SplitMix64, a small seeded generator: the same state gives the same numbers on every machine and every Swift
/// release, which `SystemRandomNumberGenerator` (not seedable) and the standard library's unspecified algorithms do
/// not promise. What the lab's chaos plans, the simulator and the tests draw from.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose draws depend on `state` alone.
  public init(state: UInt64) { self.state = state }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform draw in [0, 1), from the top 53 bits (its own arithmetic, so no library's algorithm decides it).
  public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
}
