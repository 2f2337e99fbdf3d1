import JetsamCore

/// A scenario's `chaos` section (LABS.md, "Chaos"): a random but reproducible user session, planned in full from a
/// seed before it starts.
public struct ChaosSettings: Sendable {
  /// The seed; nil: a new one each run (printed, and kept in the summary, so that the run can be replayed).
  public var seed: UInt64?
  public var duration: Duration
  /// The apps the user switches between (default: every app of the scenario).
  public var apps: [String]
  /// How often each app is picked, relatively (default 1 each).
  public var weights: [String: Double] = [:]
  /// How long the user stays in an app before the next switch, in seconds: uniformly in this range.
  public var dwell: ClosedRange<Double> = 1...5
  /// The chance that a switch goes to the home screen (the foreground app to the background) instead.
  public var home: Double = 0.1
  /// Memory pressure spikes, if any.
  public var spikes: Spikes?
  /// Kills with a random reason, if any.
  public var kills: Kills?
  /// Background refresh: several apps resumed into the background at once, if any.
  public var wakes: Wakes?

  public struct Spikes: Sendable {
    /// The mean time between spikes (they come as a Poisson process).
    public var every: Duration
    public var size: ClosedRange<Int64>
    public var length: ClosedRange<Double>
  }

  public struct Kills: Sendable {
    public var every: Duration
    public var reasons: [ExitReason]
  }

  public struct Wakes: Sendable {
    public var every: Duration
    /// At most this many apps woken at once.
    public var apps: Int
  }
}
