/// The phones the simulation knows by name, written as model files are (so they double as examples).
public enum BuiltInModels {
  /// Every built-in model's JSON5, by name.
  public static let sources: [String: String] = ["phone-4gb": phone4GB, "phone-8gb": phone8GB]

  /// The model used when `--model` is not given.
  public static let defaultName = "phone-4gb"

  /// The built-in model called `name`, read as any model file is.
  public static func model(named name: String) throws(SimModelError) -> SimModel? {
    guard let source = sources[name] else { return nil }
    return try SimModelLoader.load(bytes: Array(source.utf8), file: "built-in \(name)")
  }

  // No built-in kind has a band floor: a floor lifts an app at all times, as jetsam's config does, so a music kind
  // lifted to `audio` would be spared below critical even while suspended, and in a large population such apps pile
  // up until urgent pressure can free nothing (a model file may still ask for one).
  static let phone4GB = """
    // A 4 GB phone: a few hundred MiB of apps fit beside the system before pressure starts.
    {
      name: "phone-4gb",
      ramMiB: 4096, systemMiB: 1800,
      warning: 0.25, urgent: 0.15, critical: 0.08, hysteresis: 0.03,
      foregroundSlots: 1,
      apps: 200,
      switchSeconds: 45, popularity: 1.0, backgroundLaunchSeconds: 240,
      kinds: [
        { name: "utility", share: 5, memoryMedianMiB: 80, memorySpread: 0.4, suspendedFraction: 0.3,
          launchSeconds: 0.8, backgroundSeconds: 5, unsavedChance: 0.02 },
        { name: "social", share: 3, memoryMedianMiB: 220, memorySpread: 0.5, suspendedFraction: 0.4,
          launchSeconds: 1.5, backgroundSeconds: 20, unsavedChance: 0.15 },
        { name: "editor", share: 1, memoryMedianMiB: 300, memorySpread: 0.6, suspendedFraction: 0.5,
          launchSeconds: 2, backgroundSeconds: 30, unsavedChance: 0.6 },
        { name: "game", share: 1, memoryMedianMiB: 700, memorySpread: 0.5, suspendedFraction: 0.6,
          launchSeconds: 4, backgroundSeconds: 3, unsavedChance: 0.3 },
        { name: "music", share: 0.3, memoryMedianMiB: 120, memorySpread: 0.3, suspendedFraction: 0.5,
          launchSeconds: 1, backgroundSeconds: 1800, unsavedChance: 0 },  // plays on in the background
      ],
    }
    """

  static let phone8GB = """
    // An 8 GB phone: the same apps, more room.
    {
      name: "phone-8gb",
      ramMiB: 8192, systemMiB: 2500,
      warning: 0.25, urgent: 0.15, critical: 0.08, hysteresis: 0.03,
      foregroundSlots: 1,
      apps: 200,
      switchSeconds: 45, popularity: 1.0, backgroundLaunchSeconds: 240,
      kinds: [
        { name: "utility", share: 5, memoryMedianMiB: 80, memorySpread: 0.4, suspendedFraction: 0.3,
          launchSeconds: 0.8, backgroundSeconds: 5, unsavedChance: 0.02 },
        { name: "social", share: 3, memoryMedianMiB: 260, memorySpread: 0.5, suspendedFraction: 0.4,
          launchSeconds: 1.2, backgroundSeconds: 20, unsavedChance: 0.15 },
        { name: "editor", share: 1, memoryMedianMiB: 400, memorySpread: 0.6, suspendedFraction: 0.5,
          launchSeconds: 1.5, backgroundSeconds: 30, unsavedChance: 0.6 },
        { name: "game", share: 1, memoryMedianMiB: 1200, memorySpread: 0.5, suspendedFraction: 0.6,
          launchSeconds: 3, backgroundSeconds: 3, unsavedChance: 0.3 },
        { name: "music", share: 0.3, memoryMedianMiB: 150, memorySpread: 0.3, suspendedFraction: 0.5,
          launchSeconds: 1, backgroundSeconds: 1800, unsavedChance: 0 },  // plays on in the background
      ],
    }
    """
}
