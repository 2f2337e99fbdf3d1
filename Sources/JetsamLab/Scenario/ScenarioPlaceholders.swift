import Foundation
import Glibc
import JetsamPlatform

/// What a scenario's apps may leave to the run (LABS.md, *Apps*): `{scenarioDir}`, `{runDir}`, `{tmpDir}` (a
/// directory of the run's own, made on first use and removed when the run ends) and `{port:NAME}` (a free TCP port
/// on 127.0.0.1, the same one for the same NAME throughout the run). Real programs need a port and a data directory;
/// a scenario that wrote them in would collide with whatever else runs on the machine, a second run of itself
/// included, so the lab chooses them.
struct ScenarioPlaceholders {
  let scenarioDirectory: String
  let runDirectory: String
  /// `{tmpDir}`, once made.
  private(set) var temporaryDirectory: String?
  /// `{port:NAME}` by NAME, once chosen.
  private(set) var ports: [String: UInt16] = [:]

  init(scenarioDirectory: String, runDirectory: String) {
    self.scenarioDirectory = scenarioDirectory
    self.runDirectory = runDirectory
  }

  /// The scenario with every placeholder in its apps (command, env, commands, exercise) and its expectations'
  /// locked-file paths filled in.
  mutating func fill(_ scenario: Scenario) throws -> Scenario {
    var filled = scenario
    for name in scenario.apps.keys.sorted() {
      var app = scenario.apps[name]!
      app.command = try app.command.map { try fill($0) }
      app.environment = try app.environment.mapValues { try fill($0) }
      app.commands.ready = try app.commands.ready?.map { try fill($0) }
      app.commands.digest = try app.commands.digest?.map { try fill($0) }
      app.commands.hooks = try app.commands.hooks?.mapValues { try $0.map { try fill($0) } }
      app.exercise = try app.exercise.map { try fill($0) }
      filled.apps[name] = app
    }
    filled.steps = try scenario.steps.map { step in
      var step = step
      if case .expect(let expectation) = step.action {
        switch expectation {
        case .exit(var pattern):
          pattern.lockedFile = try pattern.lockedFile.map { try fill($0) }
          step.action = .expect(.exit(pattern))
        case .exits(let patterns):
          step.action = .expect(
            .exits(
              try patterns.map { pattern in
                var pattern = pattern
                pattern.lockedFile = try pattern.lockedFile.map { try fill($0) }
                return pattern
              }))
        default: break
        }
      }
      return step
    }
    return filled
  }

  /// One word or line with its placeholders filled in.
  mutating func fill(_ text: String) throws -> String {
    guard text.contains("{") else { return text }
    var result = text.replacingOccurrences(of: "{scenarioDir}", with: scenarioDirectory)
      .replacingOccurrences(of: "{runDir}", with: runDirectory)
    if result.contains("{tmpDir}") { result = result.replacingOccurrences(of: "{tmpDir}", with: try temporary()) }
    while let match = result.firstMatch(of: /\{port:([A-Za-z0-9_.-]+)\}/) {
      let name = String(match.1)
      var port = try ports[name] ?? Self.freePort()
      // A port just closed may be handed out again: each NAME gets its own.
      while ports[name] == nil && ports.values.contains(port) { port = try Self.freePort() }
      ports[name] = port
      result.replaceSubrange(match.range, with: String(port))
    }
    return result
  }

  /// Removes `{tmpDir}` and what the apps left in it.
  func removeTemporaryDirectory() {
    if let temporaryDirectory { try? FileManager.default.removeItem(atPath: temporaryDirectory) }
  }

  private mutating func temporary() throws -> String {
    if let temporaryDirectory { return temporaryDirectory }
    let parent = (NSTemporaryDirectory() as NSString).resolvingSymlinksInPath
    var template = Array((parent as NSString).appendingPathComponent("jetsam-lab-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else {
      throw LabError("{tmpDir}: \(SystemError.current("mkdtemp in \(parent)"))")
    }
    // Canonical, as jetsamd names the files in it (a locked file's path is its descriptor's link in /proc).
    temporaryDirectory = String(cString: made)
    return temporaryDirectory!
  }

  /// A port nothing listens on now (``LoopbackListener/freePort()``).
  private static func freePort() throws -> UInt16 {
    do { return try LoopbackListener.freePort() } catch { throw LabError("{port:…}: \(error)") }
  }
}
