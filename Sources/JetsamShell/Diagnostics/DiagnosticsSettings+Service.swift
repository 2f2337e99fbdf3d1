import JetsamConfig

extension DiagnosticsSettings {
  /// How the diagnostics service takes captures.
  var service: DiagnosticsService.Settings {
    DiagnosticsService.Settings(
      callStacks: callStacks, captureBudget: captureBudget.duration, cpuSamples: cpuSamples,
      cpuSampleInterval: cpuSampleInterval.duration)
  }
}
