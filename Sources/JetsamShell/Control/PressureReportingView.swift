import JetsamConfig
import JetsamCore
import JetsamProtocol

/// What reporting the device's pressure takes: shared by the families that answer with it
/// (``PressureControlView``, ``StatusControlView``'s `watch`).
protocol PressureReportingView: AnyObject {
  /// The config in force (a reload replaces it).
  var config: DaemonConfig { get }
  /// The policy as it stands: its level, forced or not.
  var policy: JetsamPolicy { get }
  /// The device's RAM, its available memory at the last sample, and the thresholds in bytes.
  var ramBytes: Int64 { get }
  var availableBytes: Int64 { get }
  var thresholds: PressureThresholds { get }
  /// The balloon of `pressure allocate`, while one is held.
  var balloon: (any MemoryBalloon)? { get }
}

extension PressureReportingView {
  /// An answer carrying the pressure as it stands.
  func pressureResponse() -> ControlResponse {
    var response = ControlResponse(ok: true)
    response.pressure = pressureInfo()
    return response
  }

  func pressureInfo() -> PressureInfo {
    PressureInfo(
      level: policy.level, forcedLevel: policy.forcedLevel,
      mode: { if case .host = config.device.ram { "host" } else { "device" } }(),
      ramBytes: ramBytes, availableBytes: availableBytes, thresholds: thresholds, balloonBytes: balloon?.bytes ?? 0)
  }
}
