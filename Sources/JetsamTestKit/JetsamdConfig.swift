import Foundation

/// The config a ``JetsamdInstance`` runs with.
public enum JetsamdConfig {
  /// `config` (a JSON5 object) with the keys that keep one daemon apart from every other added: `stateDirectory`
  /// and `runtimeDirectory` in `directory`, `device.cgroupName`, and `controlGroup: null` (the socket stays
  /// root's) unless `config` sets one.
  ///
  /// The added keys go first; a JSON5 object may repeat none of them, so callers must not set `stateDirectory`,
  /// `runtimeDirectory` or `device.cgroupName` themselves.
  public static func merged(_ config: String, directory: String, cgroupName: String) -> String {
    let body = config.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst().dropLast()
    return """
      {
        stateDirectory: "\(directory)/state",
        runtimeDirectory: "\(directory)/run",
        \(body.contains("controlGroup:") ? "" : "controlGroup: null,")
        \(body.contains("device:") ? "" : "device: { cgroupName: \"\(cgroupName)\" },")
        \(body.replacingOccurrences(of: "device: {", with: "device: { cgroupName: \"\(cgroupName)\", "))
      }
      """
  }
}
