/// A phone as the simulation sees it: its memory, its pressure thresholds, its kinds of apps and its user.
public struct SimModel: Sendable, Equatable {
  /// The model's name (a built-in's, or the file's).
  public var name: String
  /// The device's RAM, in MiB.
  public var ramMiB: Double
  /// What the system keeps for itself, never available to apps, in MiB.
  public var systemMiB: Double
  /// Available memory, as a fraction of RAM, at which each level is entered; each clears `hysteresis` above.
  public var warning: Double
  /// Available fraction of RAM at which urgent is entered.
  public var urgent: Double
  /// Available fraction of RAM at which critical is entered.
  public var critical: Double
  /// How far above its entry a level clears, as a fraction of RAM.
  public var hysteresis: Double
  /// Foreground slots (1 on a phone).
  public var foregroundSlots: Int
  /// Apps in the population when `--apps` does not say.
  public var apps: Int
  /// The user: mean seconds between app switches.
  public var switchSeconds: Double
  /// How strongly the user prefers a few apps: Zipf exponent over the population (0: all alike).
  public var popularity: Double
  /// Mean seconds between launches into the background (fetches, notifications), device-wide.
  public var backgroundLaunchSeconds: Double
  /// The kinds of apps, each a share of the population.
  public var kinds: [AppKind]

  /// One kind of app.
  public struct AppKind: Sendable, Equatable {
    /// The kind's name.
    public var name: String
    /// This kind's share of the population (shares are normalised).
    public var share: Double
    /// Resident memory while running: median and log-normal spread, in MiB.
    public var memoryMedianMiB: Double
    /// Sigma of the memory's logarithm.
    public var memorySpread: Double
    /// What stays resident while suspended, as a fraction of the running size (the rest compressed or dropped).
    public var suspendedFraction: Double
    /// Seconds from launch to running.
    public var launchSeconds: Double
    /// Mean seconds an app keeps running in the background after the user leaves it, before it is suspended.
    public var backgroundSeconds: Double
    /// The chance that the user leaves it with unsaved state (a draft, a half-filled form).
    public var unsavedChance: Double
    /// A band the kind is lifted to (e.g. `audio`), if any.
    public var bandFloor: String?
  }
}
