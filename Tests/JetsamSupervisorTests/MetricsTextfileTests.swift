import Foundation
import JetsamConfig
import JetsamPlatform
import Testing

@testable import JetsamShell

/// The textfile for node_exporter, driven through a made-up view on the fake loop: it writes what the view holds,
/// every interval the view's settings say, and nothing once they name no file.
@Suite("Metrics textfile")
struct MetricsTextfileTests {
  final class View: MetricsTextfileView {
    var metricsSettings = MetricsSettings()
    var text = "jetsam_pressure_level 0\n"
    private(set) var renderings = 0

    func expositionText() -> String {
      renderings += 1
      return text
    }
  }

  /// A textfile on the fake loop, writing in place into a scratch directory.
  struct Fixture {
    let view = View()
    let loop = FakeLoop()
    let writer = FakeBackground()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jetsam-textfile-\(UUID())").path
    let textfile: MetricsTextfile
    /// In a directory of its own that does not exist yet: the textfile makes it.
    var path: String { directory + "/jetsam.prom" }

    init() throws {
      textfile = try MetricsTextfile(view: view, loop: loop, writer: writer, log: Logger(threshold: .error))
    }

    func contents() -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
    func remove() { try? FileManager.default.removeItem(atPath: directory) }
  }

  @Test("writes the view's text at once, readable by all, then again every interval with what the view holds then")
  func writesEveryInterval() throws {
    let fixture = try Fixture()
    defer { fixture.remove() }
    fixture.view.metricsSettings.textfile = fixture.path
    fixture.view.metricsSettings.interval = ConfigDuration(.seconds(15))
    fixture.textfile.restart()
    #expect(fixture.contents() == "jetsam_pressure_level 0\n")
    let mode = try FileManager.default.attributesOfItem(atPath: fixture.path)[.posixPermissions] as? Int
    #expect(mode == 0o644, "node_exporter runs as another user")
    let directoryMode = try FileManager.default.attributesOfItem(atPath: fixture.directory)[.posixPermissions] as? Int
    #expect(directoryMode == 0o755)

    fixture.view.text = "jetsam_pressure_level 2\n"
    fixture.loop.advance(by: .seconds(14))
    #expect(fixture.contents() == "jetsam_pressure_level 0\n", "not before the interval is up")
    fixture.loop.advance(by: .seconds(1))
    #expect(fixture.contents() == "jetsam_pressure_level 2\n")
    #expect(fixture.view.renderings == 2 && fixture.writer.runs == 2)
  }

  @Test("settings that name no file stop the writes (a reload that took the textfile out)")
  func stopsWithoutFile() throws {
    let fixture = try Fixture()
    defer { fixture.remove() }
    fixture.textfile.restart()
    #expect(fixture.contents() == nil && fixture.view.renderings == 0, "no file named: nothing rendered or written")

    fixture.view.metricsSettings.textfile = fixture.path
    fixture.textfile.restart()
    #expect(fixture.view.renderings == 1)
    fixture.view.metricsSettings.textfile = nil
    fixture.textfile.restart()
    fixture.loop.advance(by: .seconds(60))
    #expect(fixture.view.renderings == 1, "the timer was disarmed")
  }
}
