import Foundation
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues
import Testing

@testable import JetsamShell

/// Diagnostics taken and kept, driven through fakes: the stack tool started through a fake launcher (which writes
/// what jetsam-stack would print), the helper threads held until the test lets them run, the loop's time moved by
/// hand. The diagnostics are written for real, to a scratch directory, and read back.
@Suite("Diagnostics service")
struct DiagnosticsServiceTests {
  /// A service on fakes, its diagnostics kept in a scratch directory.
  final class Fixture {
    static let toolPath = "/usr/libexec/jetsam/jetsam-stack"
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jetsam-diagnostics-\(UUID())").path
    let loop = FakeLoop()
    let launcher = FakeLauncher()
    /// Hangs and crashes run here, CPU samples on `sampling`: held until the test finishes them.
    let urgent = FakeBackground()
    let sampling = FakeBackground()
    let service: DiagnosticsService

    init(settings: DiagnosticsService.Settings = .init(), keep: Int = 1_000, stateDirectory: String? = nil) throws {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      urgent.holding = true
      sampling.holding = true
      // jetsam-stack's report of one sample of the main thread, hung in `flush` called from `main`.
      launcher.output = { request in
        let pid = request.arguments.last ?? "0"
        return "sample\nthread\t\(pid)\tmail\n"
          + "frame\t1010\t1000\t-\t8\t/usr/bin/mail\tflush\t1\n"
          + "frame\t1100\t1000\t-\t20\t/usr/bin/mail\tmain\n"
      }
      service = DiagnosticsService(
        loop: loop, launcher: launcher, stateDirectory: stateDirectory ?? directory, toolPath: Self.toolPath,
        settings: settings, keep: keep, log: Logger(threshold: .error), journal: Journal(enabled: false),
        workers: DiagnosticsService.Workers(urgent: urgent, sampling: sampling))
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Asks for `request` of mail's process 1000 (its second launch); `then` counts into `done`.
    func capture(_ request: DiagnosticRequest, pid: Int32 = 1000, done: Counter? = nil) {
      service.capture(
        app: "mail", pid: pid, launch: 2, request, target: scratchDescriptor(),
        then: done.map { done in { done.count += 1 } })
    }

    /// The diagnostics kept, oldest first.
    var kept: [DiagnosticRecord] { service.reader.read() }
  }

  final class Counter {
    var count = 0
  }

  static let hang = DiagnosticRequest.hang(event: .didEnterBackground, seconds: 5)
  static let cpu = DiagnosticRequest.cpuException(
    CPUUsageReport(
      state: .background, cpuSeconds: 45, windowSeconds: 60, sampledSeconds: 60, limitPercent: 50, fatal: false))

  @Test("a hang's stacks are taken of its process by jetsam-stack, kept, and handed to its exit record once")
  func hangIsKept() throws {
    let fixture = try Fixture()
    let done = Counter()
    fixture.capture(Self.hang, done: done)
    let request = try #require(fixture.launcher.requests.only)
    #expect(
      request.arguments == [Fixture.toolPath, "--samples", "1", "--interval-ms", "100", "--pidfd", "3", "1000"])
    #expect(fixture.service.isCapturing(app: "mail", pid: 1000))
    #expect(fixture.kept.isEmpty && done.count == 0)

    fixture.urgent.finish()
    let record = try #require(fixture.kept.only)
    #expect(record.kind == .hang && record.app == "mail" && record.pid == 1000 && record.launch == 2)
    let metadata = record.diagnostic.diagnosticMetaData
    #expect(metadata.jetsamCaptureError == nil && metadata.jetsamSamples == 1)
    #expect(metadata.hangDuration == "5 sec" && metadata.jetsamLifecycleEvent == "didEnterBackground")
    let tree = try #require(record.diagnostic.callStackTree)
    #expect(tree.attributedPath.map(\.symbol) == ["main", "flush"])
    #expect(done.count == 1 && !fixture.service.isCapturing(app: "mail", pid: 1000))
    #expect(fixture.service.takeWritten(app: "mail", pid: 1000) == [record.id])
    #expect(fixture.service.takeWritten(app: "mail", pid: 1000).isEmpty)
  }

  @Test("the tool's exit is left to it, and it is reaped through its pidfd once it ends")
  func toolIsReaped() throws {
    let fixture = try Fixture()
    fixture.capture(Self.hang)
    let tool = try #require(fixture.launcher.spawned.only)
    #expect(fixture.launcher.discarded == [tool.pid])
    #expect(fixture.loop.isWatched(tool.pidfd) && fixture.launcher.reaped.isEmpty)
    fixture.loop.ready(tool.pidfd)
    #expect(fixture.launcher.reaped == [tool.pid])
    #expect(!fixture.loop.isWatched(tool.pidfd))
  }

  @Test("a kill waiting for a capture goes ahead once the diagnostic is written; with none under way at once")
  func killWaitsForCapture() throws {
    let fixture = try Fixture()
    let killed = Counter()
    fixture.service.whenCaptured(app: "mail", pid: 1000) { killed.count += 1 }
    #expect(killed.count == 1)
    fixture.capture(Self.hang)
    fixture.service.whenCaptured(app: "mail", pid: 1000) { killed.count += 1 }
    #expect(killed.count == 1)
    fixture.urgent.finish()
    #expect(killed.count == 2 && fixture.kept.count == 1)
    // Its budget's deadline is spent: nothing runs twice.
    fixture.loop.advance(by: .seconds(5))
    #expect(killed.count == 2)
  }

  @Test("a capture stuck past its budget and a second holds the kill no longer, and the kill goes once")
  func killGoesAfterBudget() throws {
    var settings = DiagnosticsService.Settings()
    settings.captureBudget = .seconds(2)
    let fixture = try Fixture(settings: settings)
    let killed = Counter()
    let done = Counter()
    fixture.capture(Self.hang, done: done)
    fixture.service.whenCaptured(app: "mail", pid: 1000) { killed.count += 1 }
    fixture.loop.advance(by: .milliseconds(2_999))
    #expect(killed.count == 0)
    fixture.loop.advance(by: .milliseconds(1))
    #expect(killed.count == 1)
    // The helper comes back at last: the diagnostic is kept and its own waiter told, the kill not sent again.
    fixture.urgent.finish()
    #expect(killed.count == 1 && done.count == 1 && fixture.kept.count == 1)
  }

  @Test("a fatal CPU exception's kill waits through its samples too (10 samples 100 ms apart), then no longer")
  func killWaitsForSamples() throws {
    var settings = DiagnosticsService.Settings()
    settings.captureBudget = .seconds(2)
    let fixture = try Fixture(settings: settings)
    let killed = Counter()
    fixture.capture(Self.cpu)
    fixture.service.whenCaptured(app: "mail", pid: 1000) { killed.count += 1 }
    fixture.loop.advance(by: .milliseconds(3_899))
    #expect(killed.count == 0, "budget, a second, and 900 ms of sampling")
    fixture.loop.advance(by: .milliseconds(1))
    #expect(killed.count == 1)
  }

  @Test("a kill waits for every capture of its process under way, on either helper")
  func killWaitsForAll() throws {
    let fixture = try Fixture()
    let killed = Counter()
    fixture.capture(Self.cpu)
    fixture.capture(Self.hang)
    fixture.service.whenCaptured(app: "mail", pid: 1000) { killed.count += 1 }
    fixture.urgent.finish()
    #expect(killed.count == 0 && fixture.service.isCapturing(app: "mail", pid: 1000))
    fixture.sampling.finish()
    #expect(killed.count == 1 && fixture.kept.count == 2)
  }

  @Test("a CPU exception takes its samples on a helper of its own: a hang's capture never waits behind it")
  func cpuSamplesApart() throws {
    let fixture = try Fixture()
    fixture.capture(Self.cpu, pid: 1000)
    #expect(fixture.sampling.runs == 1 && fixture.urgent.runs == 0)
    #expect(
      fixture.launcher.requests[0].arguments.prefix(5) == [Fixture.toolPath, "--samples", "10", "--interval-ms", "100"])
    fixture.capture(Self.hang, pid: 2000)
    #expect(fixture.urgent.runs == 1)
    fixture.urgent.finish()
    #expect(fixture.kept.map(\.kind) == [.hang])
    #expect(fixture.service.isCapturing(app: "mail", pid: 1000) && !fixture.service.isCapturing(app: "mail", pid: 2000))
    fixture.sampling.finish()
    let cpu = try #require(fixture.kept.first { $0.kind == .cpuException })
    #expect(cpu.diagnostic.diagnosticMetaData.jetsamCPULimitPercent == 50)
  }

  @Test("a tool that cannot start leaves a diagnostic saying why, with no stacks")
  func toolThatCannotStart() throws {
    let fixture = try Fixture()
    fixture.launcher.failSpawns = true
    let done = Counter()
    fixture.capture(Self.hang, done: done)
    fixture.urgent.finish()
    let record = try #require(fixture.kept.only)
    let error = try #require(record.diagnostic.diagnosticMetaData.jetsamCaptureError)
    #expect(error.hasPrefix("jetsam-stack could not start:") && error.contains("/usr/libexec/jetsam/jetsam-stack"))
    #expect(record.diagnostic.callStackTree == nil)
    #expect(done.count == 1 && fixture.service.takeWritten(app: "mail", pid: 1000) == [record.id])
  }

  @Test("the tool's own error is the diagnostic's capture error")
  func toolError() throws {
    let fixture = try Fixture()
    fixture.launcher.output = { _ in "error\tptrace: Operation not permitted\n" }
    fixture.capture(Self.hang)
    fixture.urgent.finish()
    let record = try #require(fixture.kept.only)
    #expect(record.diagnostic.diagnosticMetaData.jetsamCaptureError == "ptrace: Operation not permitted")
    #expect(record.diagnostic.callStackTree == nil && record.diagnostic.diagnosticMetaData.jetsamSamples == 0)
  }

  @Test("with call stacks off no tool runs: the diagnostic carries its figures and says so")
  func callStacksOff() throws {
    var settings = DiagnosticsService.Settings()
    settings.callStacks = false
    let fixture = try Fixture(settings: settings)
    fixture.capture(Self.cpu)
    fixture.sampling.finish()
    #expect(fixture.launcher.requests.isEmpty)
    let record = try #require(fixture.kept.only)
    #expect(
      record.diagnostic.diagnosticMetaData.jetsamCaptureError == "call stacks are off (config diagnostics.callStacks)")
    #expect(record.diagnostic.diagnosticMetaData.totalCPUTime == "45 sec")
  }

  @Test("a diagnostic that cannot be written is not handed to the record, and whoever waited is told all the same")
  func unwritableDiagnostic() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("jetsam-not-a-directory-\(UUID())").path
    #expect(FileManager.default.createFile(atPath: file, contents: Data()))
    defer { try? FileManager.default.removeItem(atPath: file) }
    let fixture = try Fixture(stateDirectory: file)
    let done = Counter()
    let killed = Counter()
    fixture.capture(Self.hang, done: done)
    fixture.service.whenCaptured(app: "mail", pid: 1000) { killed.count += 1 }
    fixture.urgent.finish()
    #expect(done.count == 1 && killed.count == 1)
    #expect(!fixture.service.isCapturing(app: "mail", pid: 1000))
    #expect(fixture.service.takeWritten(app: "mail", pid: 1000).isEmpty)
  }

  @Test("an exit record refers to its process's newest diagnostics only, 32 at most")
  func newestPerRecord() throws {
    var settings = DiagnosticsService.Settings()
    settings.callStacks = false
    let fixture = try Fixture(settings: settings)
    for _ in 0..<(DiagnosticsService.maximumPerRecord + 1) { fixture.capture(Self.cpu) }
    fixture.sampling.finish()
    let written = fixture.service.takeWritten(app: "mail", pid: 1000)
    #expect(written.count == DiagnosticsService.maximumPerRecord)
    // Ids carry their capture's sequence: the first one taken is the one left out.
    #expect(written.first?.hasSuffix("-2-mail-cpuException") == true)
    #expect(written.last?.hasSuffix("-33-mail-cpuException") == true)
  }

  @Test("only the newest `keep` diagnostics are kept on disk")
  func keepsNewest() throws {
    var settings = DiagnosticsService.Settings()
    settings.callStacks = false
    let fixture = try Fixture(settings: settings, keep: 2)
    for pid: Int32 in [1000, 1001, 1002] { fixture.capture(Self.hang, pid: pid) }
    fixture.urgent.finish()
    #expect(fixture.kept.map(\.pid) == [1001, 1002])
  }

  @Test("every refused crash report is counted")
  func refusedCrashReports() throws {
    let fixture = try Fixture()
    fixture.service.refusedCrashReport(app: "mail", pid: 1000, reason: "not in the app's cgroup")
    fixture.service.refusedCrashReport(app: "mail", pid: 1000, reason: "not in the app's cgroup")
    fixture.service.refusedCrashReport(app: "maps", pid: 2000, reason: "forged")
    #expect(fixture.service.refusedCrashReports == 3)
  }
}
