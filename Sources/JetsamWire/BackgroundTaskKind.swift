/// What a background task is for, as iOS tells them apart: `beginBackgroundTask kind=` (PROTOCOL.md, *App to
/// daemon*). One definition for jetsamd's policy and the Swift client.
///
/// Listed in `Tests/Fixtures/wire-lines.json` (`vocabulary.values.backgroundTaskKind`), which the tests hold equal to
/// ``allCases``.
public enum BackgroundTaskKind: String, Sendable, Equatable, CaseIterable {
  /// Time to finish work the user started (`beginBackgroundTask`): bound by the background budget and the CPU
  /// monitor. What a `beginBackgroundTask` without `kind=` asks for.
  case finishing
  /// Deferrable heavy work (like `BGProcessingTask`): while the device is idle and charging it is bound by neither
  /// the background budget nor the CPU monitor; otherwise it is a `finishing` task.
  case processing
}
