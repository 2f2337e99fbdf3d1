import Foundation
import JetsamFuzzing
import Testing

/// Every input kept under Inputs/<target>/ (the seed corpus, and each crasher libFuzzer ever found, named
/// `crash-…`) runs through its fuzz target here, without the sanitizers: a regression traps and fails the run.
@Suite("Saved fuzz inputs")
struct SavedInputTests {
  static let inputs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Inputs")

  static func files(of target: FuzzTarget) -> [URL] {
    let folder = inputs.appendingPathComponent(target.rawValue)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.sorted().map { folder.appendingPathComponent($0) }
  }

  @Test("every target has a seed corpus", arguments: FuzzTarget.allCases)
  func seeded(target: FuzzTarget) {
    #expect(Self.files(of: target).count >= 5, "Inputs/\(target.rawValue) holds too few seeds")
  }

  @Test("every saved input runs through its target", arguments: FuzzTarget.allCases)
  func replay(target: FuzzTarget) throws {
    for file in Self.files(of: target) {
      target.run(Array(try Data(contentsOf: file)))
    }
  }
}
