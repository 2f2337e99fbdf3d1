/// One run of a command jetsamd ran for a launch (its `ready` polls, a `digest` run, a lifecycle hook), as its exit
/// record keeps it: which run, the command, how it ended, how long it took, and the tail of what it printed.
public struct CommandRunRecord: Codable, Hashable, Sendable {
  /// Which run: `ready`, `digest saved`, `digest restored`, `digest resumed`, `hook didEnterBackground`.
  public var run: String
  /// The program and its arguments.
  public var command: [String]
  /// The exit status, when it exited.
  public var exitCode: Int32?
  /// The signal that ended it, when one did (SIGKILL after ``timedOut``).
  public var signal: Int32?
  /// It outlived its timeout and was killed.
  public var timedOut: Bool?
  /// Why it could not start, or why its end is not known: a sentence naming what failed.
  public var failure: String?
  /// Seconds from its start (or attempt to start) to its end.
  public var seconds: Double
  /// The last bytes it printed (standard output, and standard error for hooks and `ready`), at most
  /// ``maxOutputBytes``; absent when it printed nothing.
  public var output: String?
  /// For `ready`: how many runs started (only the last is kept).
  public var attempts: Int?

  public init(
    run: String, command: [String], exitCode: Int32? = nil, signal: Int32? = nil, timedOut: Bool? = nil,
    failure: String? = nil, seconds: Double, output: String? = nil, attempts: Int? = nil
  ) {
    self.run = run
    self.command = command
    self.exitCode = exitCode
    self.signal = signal
    self.timedOut = timedOut
    self.failure = failure
    self.seconds = seconds
    self.output = output
    self.attempts = attempts
  }

  /// The most output kept of one run: enough for an error message or a digest, small enough that a record with
  /// ``maxRunsKept`` runs stays a modest line.
  public static let maxOutputBytes = 1024
  /// The most runs one launch's record keeps (the latest): a long life of hooks must not grow its record without
  /// bound.
  public static let maxRunsKept = 16

  /// How it ended, in words: `exited 0`, `killed by signal 9`, `timed out`, `could not start: …`.
  public var ending: String {
    if let failure { return failure }
    if timedOut == true { return "timed out" }
    if let exitCode { return "exited \(exitCode)" }
    if let signal { return "killed by signal \(signal)" }
    return "ended"
  }

  /// `output` cut to its last ``maxOutputBytes`` bytes (on a character boundary), nil when empty.
  static func tail(_ output: String?) -> String? {
    guard let output, !output.isEmpty else { return nil }
    let utf8 = output.utf8
    guard utf8.count > maxOutputBytes else { return output }
    var start = utf8.index(utf8.endIndex, offsetBy: -maxOutputBytes)
    // Never cut inside a character: step forward to the next scalar's first byte.
    while start < utf8.endIndex && UTF8.isContinuation(utf8[start]) { start = utf8.index(after: start) }
    return String(output[start...])
  }
}
