import JetsamProtocol

/// Answers control requests (PROTOCOL-CONTROL.md) by handing each to its family: apps (``AppRequests``), status
/// (``StatusRequests``), pressure (``PressureRequests``), records (``RecordRequests``). Each family sees only the
/// part of the daemon it needs (its `…ControlView`) and decides nothing.
final class ControlRequestHandler {
  private let apps: AppRequests
  private let status: StatusRequests
  private let pressure: PressureRequests
  private let records: RecordRequests

  init(apps: AppRequests, status: StatusRequests, pressure: PressureRequests, records: RecordRequests) {
    self.apps = apps
    self.status = status
    self.pressure = pressure
    self.records = records
  }

  /// Answers one control request, or returns nil and answers through `connection` later (a suspend is answered
  /// once the apps' processes are seen stopped, or counted incomplete by the suspend timeout).
  func handle(_ request: ControlRequest, from connection: ControlConnection) -> ControlResponse? {
    do {
      switch request.verb {
      case .status: return status.statusResponse()
      case .ps: return status.psResponse()
      case .watch: return try status.watch(request, connection: connection)
      case .pressure: return try pressure.pressure(request, connection: connection)
      case .device: return try pressure.device(request)
      case .metrics: return try records.metrics(request, connection: connection)
      case .diagnostics: return try records.diagnostics(request, connection: connection)
      case .exits: return try records.exits(request, connection: connection)
      case .launch: return try apps.launch(request, connection: connection)
      case .activate: return try apps.lifecycle(.activate, request, connection: connection)
      case .background: return try apps.lifecycle(.background, request, connection: connection)
      case .suspend: return try apps.lifecycle(.suspend, request, connection: connection)
      case .resume: return try apps.lifecycle(.resume, request, connection: connection)
      case .terminate: return try apps.lifecycle(.terminate, request, connection: connection)
      case .kill:
        return try apps.lifecycle(.kill(request.reason ?? .memoryPressure), request, connection: connection)
      case .debugFreeze: return try apps.debugFreeze()
      }
    } catch {
      return .failure(for: error)
    }
  }
}
