import JetsamLab

/// A lab scenario file, read and checked as `jetsam-lab run` reads it (its device profile looked up in
/// `config/profiles`, as from the source tree's root, and the private jetsamd's config checked). A refusal that does
/// not say where in the file (a key path, or a line and column) is a failure.
enum ScenarioFuzzing {
  static func run(_ bytes: [UInt8]) {
    do {
      _ = try ScenarioLoader.parse(bytes: bytes, file: "fuzzed.json5", profileDirectories: ["config/profiles"])
    } catch {
      precondition(error.namesPlace, "a scenario refusal that names no place: \(error)")
    }
  }
}
