/// How serious the device's memory pressure is, as `memoryWarning level=` says it (PROTOCOL.md, *Daemon to app*).
/// One list for jetsamd, which sends its pressure levels above normal by these names, and the Swift client, whose
/// `MemoryWarningLevel` constants are these.
///
/// Listed in `Tests/Fixtures/wire-lines.json` (`vocabulary.values.memoryWarningLevel`), which the tests hold equal to
/// ``allCases``.
public enum MemoryWarningLevelName: String, Sendable, Equatable, CaseIterable {
  /// Pressure rose to warning: drop caches. What a `memoryWarning` without `level=` means.
  case warning
  /// Pressure is urgent: suspended and background apps are being killed.
  case urgent
  /// Pressure is critical: apps in every band are being killed, the foreground included.
  case critical
}
