/// Commands that speak the protocol for a program that cannot: whether it is up (`ready`) and what state it holds
/// (`digest`), so that launches are watched and restorations judged as for apps that report these themselves.
public struct AppCommands: Sendable, Equatable, Codable {
  /// Succeeds (exits 0) once the program is up: polled from the launch with backoff, its first success
  /// acknowledges `didFinishLaunching` (whose watchdog applies to the polling).
  public var ready: [String]?
  /// Prints a digest of the state the program holds: taken at `didEnterBackground` (after the event's command hook,
  /// phase saved), after a relaunch once `ready` succeeds (phase restored), and at the return from the background
  /// when `digestValidFor` is set (phase resumed).
  public var digest: [String]?
  /// How long the state the digest describes stays current (a saved digest's `validFor`).
  public var digestValidFor: Duration?
  /// How long one run of `ready`, and of `digest`, may take before it is killed (nil: ``defaultTimeout``).
  public var readyTimeout: Duration?
  public var digestTimeout: Duration?

  public init(
    ready: [String]? = nil, digest: [String]? = nil, digestValidFor: Duration? = nil, readyTimeout: Duration? = nil,
    digestTimeout: Duration? = nil
  ) {
    self.ready = ready
    self.digest = digest
    self.digestValidFor = digestValidFor
    self.readyTimeout = readyTimeout
    self.digestTimeout = digestTimeout
  }

  /// Whether no command speaks for the program.
  public var isEmpty: Bool { ready == nil && digest == nil }

  /// The PATH hooks and commands run with, and their program is looked up in: the same for every app and every user,
  /// never jetsamd's own, so that a launch can tell before it starts whether a command's program is there.
  public static let searchPath = "/usr/local/bin:/usr/bin:/bin"

  /// How long one run may take when the settings do not say: a probe that takes longer is as good as failed.
  public static let defaultTimeout = Duration.seconds(5)

  /// The longest digest a command may print (UTF-8 bytes, surrounding white space trimmed): far above any hash, and
  /// within what one protocol line carries.
  public static let maxDigestBytes = 1024

  /// How long after the `attempt`th failed run of `ready` (counting from 1) the next one starts: 50 ms, doubling,
  /// at most a second, so that a quick start is seen at once and a slow one costs a run a second.
  public static func readyBackoff(afterAttempt attempt: Int) -> Duration {
    let doublings = min(max(attempt - 1, 0), 5)
    return min(.milliseconds(50 << doublings), .seconds(1))
  }
}
