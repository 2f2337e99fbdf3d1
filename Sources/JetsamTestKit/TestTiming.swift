import Glibc

/// How much slower than a bare host the tests run (`JETSAM_TEST_SLOWDOWN`, e.g. 4 inside the emulated cgroup
/// v2 VM): waits, sanity bounds and the lifecycle time scale of test configs stretch by this factor, deadlines
/// stay exact.
public enum TestTiming {
  /// The factor, at least 1 (1 when the variable is unset or not a number).
  public static let slowdown: Double = {
    guard let text = getenv("JETSAM_TEST_SLOWDOWN").map({ String(cString: $0) }), let value = Double(text),
      value >= 1
    else { return 1 }
    return value
  }()

  /// A config `timeScale` for tests: `base` on a bare host, stretched by the slowdown elsewhere.
  public static func timeScale(_ base: Double) -> String { String(min(1, base * slowdown)) }
}
