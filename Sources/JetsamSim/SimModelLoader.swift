import JetsamConfig

/// Reads a ``SimModel`` from JSON5, naming the key path of every value it refuses.
public enum SimModelLoader {
  /// The model in JSON5 `bytes`, read from `file` (a path, or `built-in NAME`).
  public static func load(bytes: [UInt8], file: String) throws(SimModelError) -> SimModel {
    let object: [String: JSONTree]
    do {
      object = try ConfigLoader.json5Object(bytes: bytes, file: file)
    } catch {
      // The config module's error already names the file and the line and column (or key path).
      throw SimModelError(file: file, keyPath: "", reason: Self.reason(of: error))
    }
    return try Reader(file: file).model(object)
  }

  private static func reason(of error: ConfigError) -> String {
    // A syntax error's reason already says the line and column.
    if error.line != nil { return error.reason }
    return error.keyPath.isEmpty ? error.reason : "\(error.keyPath): \(error.reason)"
  }

  /// Reads the keys of one object, refusing unknown ones (a typo must not be a default silently taken).
  private struct Reader {
    let file: String

    func fail(_ path: String, _ reason: String) -> SimModelError {
      SimModelError(file: file, keyPath: path, reason: reason)
    }

    func checkKeys(_ object: [String: JSONTree], _ known: Set<String>, at path: String) throws(SimModelError) {
      for key in object.keys.sorted() where !known.contains(key) {
        throw fail(
          path.isEmpty ? key : "\(path).\(key)", "unknown key (known: \(known.sorted().joined(separator: ", ")))")
      }
    }

    func number(
      _ object: [String: JSONTree], _ key: String, at path: String, default value: Double? = nil,
      in range: ClosedRange<Double>
    ) throws(SimModelError) -> Double {
      let place = path.isEmpty ? key : "\(path).\(key)"
      let found: Double
      switch object[key] {
      case .integer(let integer): found = Double(integer)
      case .number(let number): found = number
      case nil:
        guard let value else { throw fail(place, "missing (a number is required)") }
        return value
      default: throw fail(place, "is not a number")
      }
      guard range.contains(found) else {
        throw fail(place, "\(found) is out of range (\(range.lowerBound) to \(range.upperBound))")
      }
      return found
    }

    func model(_ object: [String: JSONTree]) throws(SimModelError) -> SimModel {
      try checkKeys(
        object,
        [
          "name", "ramMiB", "systemMiB", "warning", "urgent", "critical", "hysteresis", "foregroundSlots", "apps",
          "switchSeconds", "popularity", "backgroundLaunchSeconds", "kinds",
        ], at: "")
      var name = file
      if let value = object["name"] {
        guard case .string(let text) = value, !text.isEmpty else { throw fail("name", "is not a non-empty string") }
        name = text
      }
      let ram = try number(object, "ramMiB", at: "", in: 64...1_048_576)
      let model = SimModel(
        name: name, ramMiB: ram,
        systemMiB: try number(object, "systemMiB", at: "", default: 0, in: 0...(ram - 1)),
        warning: try number(object, "warning", at: "", default: 0.25, in: 0...1),
        urgent: try number(object, "urgent", at: "", default: 0.15, in: 0...1),
        critical: try number(object, "critical", at: "", default: 0.08, in: 0...1),
        hysteresis: try number(object, "hysteresis", at: "", default: 0.03, in: 0...0.5),
        foregroundSlots: Int(try number(object, "foregroundSlots", at: "", default: 1, in: 1...8)),
        apps: Int(try number(object, "apps", at: "", default: 200, in: 1...10_000_000)),
        switchSeconds: try number(object, "switchSeconds", at: "", default: 60, in: 0.1...86_400),
        popularity: try number(object, "popularity", at: "", default: 1, in: 0...5),
        backgroundLaunchSeconds: try number(object, "backgroundLaunchSeconds", at: "", default: 300, in: 0.1...86_400),
        kinds: try kinds(object["kinds"]))
      guard model.critical < model.urgent, model.urgent < model.warning else {
        throw fail(
          "critical",
          "the levels must rise: critical \(model.critical) < urgent \(model.urgent) < warning \(model.warning)")
      }
      return model
    }

    func kinds(_ value: JSONTree?) throws(SimModelError) -> [SimModel.AppKind] {
      guard case .array(let items) = value else { throw fail("kinds", "missing or not a list of app kinds") }
      guard !items.isEmpty else { throw fail("kinds", "is empty (at least one kind of app is needed)") }
      var kinds: [SimModel.AppKind] = []
      for (index, item) in items.enumerated() {
        let path = "kinds[\(index)]"
        guard case .object(let object) = item else { throw fail(path, "is not an object") }
        try checkKeys(
          object,
          [
            "name", "share", "memoryMedianMiB", "memorySpread", "suspendedFraction", "launchSeconds",
            "backgroundSeconds", "unsavedChance", "bandFloor",
          ], at: path)
        guard case .string(let name)? = object["name"], !name.isEmpty else {
          throw fail("\(path).name", "missing or not a non-empty string")
        }
        var floor: String?
        if let value = object["bandFloor"] {
          guard case .string(let text) = value, ["mail", "audio", "critical"].contains(text) else {
            let written = if case .string(let text) = value { "\"\(text)\"" } else { "the value" }
            throw fail("\(path).bandFloor", "\(written) is not one of mail, audio, critical")
          }
          floor = text
        }
        kinds.append(
          SimModel.AppKind(
            name: name, share: try number(object, "share", at: path, default: 1, in: 0.000_001...1_000_000),
            memoryMedianMiB: try number(object, "memoryMedianMiB", at: path, in: 1...65_536),
            memorySpread: try number(object, "memorySpread", at: path, default: 0.4, in: 0...3),
            suspendedFraction: try number(object, "suspendedFraction", at: path, default: 0.4, in: 0...1),
            launchSeconds: try number(object, "launchSeconds", at: path, default: 1, in: 0...600),
            backgroundSeconds: try number(object, "backgroundSeconds", at: path, default: 10, in: 0...86_400),
            unsavedChance: try number(object, "unsavedChance", at: path, default: 0, in: 0...1),
            bandFloor: floor))
      }
      return kinds
    }
  }
}
