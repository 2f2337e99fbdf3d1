import JetsamValues

/// When suspended apps' memory is read: in rounds (``PolicyConfig/suspendedMemoryInterval``) while any app is
/// suspended (none otherwise,
/// so a device with no suspended app costs nothing), and each app once at its suspension (the reading that anchors
/// its average, asked for with the stop), without bringing the round forward for everyone (a suspension storm
/// would read every suspended app at each suspension: n² readings).
struct SuspendedMemorySampling: Sendable {
  /// When the next round reads every suspended app; nil while none is suspended.
  var nextRoundAt: Instant?
  /// How many apps are suspended: the last to leave ends the rounds at once (no deadline left behind), without a
  /// scan of every app at each resumption.
  var suspended = 0
}
