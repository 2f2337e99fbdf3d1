import JetsamValues

/// The device's pressure level: measured from samples with hysteresis, or forced by a user.
extension JetsamPolicy {
  mutating func memorySampled(available: Int64, at: Instant) -> [PolicyAction] {
    let before = level
    availableBytes = available
    measuredLevel = config.thresholds.level(available: available, current: measuredLevel)
    // This sample was taken after the last victim's memory came back, so jetsam may judge again.
    owesFreshSample = false
    // Warnings go out before any kill, as iOS's didReceiveMemoryWarning does.
    return levelChange(from: before) + memoryWarnings(from: before, at: at) + runJetsam(at: at)
  }

  mutating func forceLevel(_ forced: PressureLevel?, at: Instant) -> [PolicyAction] {
    let before = level
    forcedLevel = forced
    return levelChange(from: before) + memoryWarnings(from: before, at: at) + runJetsam(at: at)
  }

  /// A `levelChanged` action if the level in force is no longer `before`.
  func levelChange(from before: PressureLevel) -> [PolicyAction] {
    guard level != before else { return [] }
    return [.levelChanged(from: before, to: level, available: availableBytes ?? 0)]
  }
}
