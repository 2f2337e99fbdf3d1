import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// Answers `pressure` (the level, forced or cleared; the balloon) and `device` (the charging switch): with `wait`,
/// once the balloon is charged or jetsam has done what the level asks. It decides nothing.
final class PressureRequests {
  /// All it sees of the daemon, and all it may ask of it.
  private let daemon: any PressureControlView

  init(daemon: any PressureControlView) {
    self.daemon = daemon
  }

  /// Shows the device's conditions, after switching `charging` if the request says.
  func device(_ request: ControlRequest) throws -> ControlResponse {
    if let charging = request.charging {
      try daemon.submit([.setCharging(charging, at: MonotonicClock.now())])
      daemon.log.notice("device \(charging ? "idle and charging" : "no longer charging")")
      daemon.publishDevice(charging: daemon.policy.deviceCharging)
    }
    var response = ControlResponse(ok: true)
    response.device = DeviceInfo(charging: daemon.policy.deviceCharging)
    return response
  }

  /// Pressure requests; with `wait`, answered once the balloon is charged or jetsam has done what the level asks.
  func pressure(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse? {
    let now = MonotonicClock.now()
    let wait = try request.pressureWait()
    let action = try request.pressureRequest(ram: daemon.ramBytes)
    switch action {
    case .get: break
    case .set(let level): try daemon.submit([.forceLevel(level, at: now)])
    case .clear: try daemon.submit([.forceLevel(nil, at: now)])
    case .allocate(let bytes): try daemon.inflateBalloon(bytes: bytes)
    case .release: daemon.releaseBalloon()
    }
    guard let wait else { return daemon.pressureResponse() }
    let what: String
    let check: ConditionWaiters.Check
    if case .allocate = action, let balloon = daemon.balloon {
      what = "the balloon to be charged"
      check = { [weak balloon, unowned daemon] in
        guard let balloon, daemon.balloon === balloon else {
          return .failure(ControlError(.launchFailed, "the balloon was released before it was charged"))
        }
        switch balloon.charge {
        case .filling: return nil
        case .charged: return .success(())
        case .failed:
          return .failure(ControlError(.launchFailed, "the balloon's process ended before it was charged"))
        }
      }
    } else {
      what = "jetsam to act on the level (no kill in flight or left to make, their records written)"
      check = { [unowned daemon] in daemon.isJetsamSettled ? .success(()) : nil }
    }
    let answer = { [unowned self] (outcome: Result<Void, ControlError>) -> ControlResponse in
      switch outcome {
      case .success: self.daemon.pressureResponse()
      case .failure(let error): .failure(error)
      }
    }
    let known = daemon.addWaiter(timeout: wait, what: what, check: check) { [weak connection] outcome in
      connection?.reply(answer(outcome))
    }
    return known.map(answer)
  }
}
