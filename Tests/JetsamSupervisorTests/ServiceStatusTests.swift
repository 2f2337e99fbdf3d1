import Testing

@testable import JetsamShell

/// What systemd hears: READY with the first status line, then a STATUS= line only when the status changed.
@Suite("Service status")
struct ServiceStatusTests {
  final class Sent {
    var lines: [String] = []
  }

  let sent = Sent()
  let status: ServiceStatus

  init() {
    let sent = self.sent
    status = ServiceStatus(
      notifier: ServiceStatus.Notifier(
        ready: { sent.lines.append("READY " + $0) }, status: { sent.lines.append("STATUS " + $0) }))
  }

  @Test("READY carries the first status; the same line again sends nothing, a new one is sent once")
  func onlyChanges() {
    status.ready("3 apps")
    status.update("3 apps")
    status.update("4 apps")
    status.update("4 apps")
    status.update("3 apps")
    #expect(sent.lines == ["READY 3 apps", "STATUS 4 apps", "STATUS 3 apps"])
  }

  @Test("READY again (after a reload) sends its line whatever was sent before, and counts as the last")
  func readyAgain() {
    status.update("starting")
    status.ready("starting")
    status.update("starting")
    #expect(sent.lines == ["STATUS starting", "READY starting"])
  }
}
