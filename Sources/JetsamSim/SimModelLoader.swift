import JetsamConfig

/// Reads a ``SimModel`` from JSON5, naming the key path of every value it refuses: through the config module's
/// reader (``ConfigLoader``), as a config is read.
public enum SimModelLoader {
  /// The model in JSON5 `bytes`, read from `file` (a path, or `built-in NAME`).
  public static func load(bytes: [UInt8], file: String) throws(SimModelError) -> SimModel {
    var model: SimModel
    do {
      model = try ConfigLoader.decode(
        SimModel.self, from: ConfigLoader.json5Object(bytes: bytes, file: file), file: file)
    } catch {
      // A syntax error's reason already says the line and column.
      throw SimModelError(file: file, keyPath: error.line == nil ? error.keyPath : "", reason: error.reason)
    }
    if model.name.isEmpty { model.name = file }
    return model
  }
}
