/// What a background task is for, as iOS tells them apart.
public enum BackgroundTaskKind: String, Sendable, Equatable, CaseIterable {
  /// Time to finish work the user started (`beginBackgroundTask`): bound by the background budget and the CPU
  /// monitor.
  case finishing
  /// Deferrable heavy work (like `BGProcessingTask`): while the device is idle and charging it is bound by neither
  /// the background budget nor the CPU monitor; otherwise it is a `finishing` task.
  case processing
}
