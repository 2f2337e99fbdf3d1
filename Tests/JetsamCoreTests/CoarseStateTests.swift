import Foundation
import JetsamCore
import Testing

/// The coarse state records and snapshots carry: typed in the core, the same words in JSON as before.
@Suite struct CoarseStateTests {
  @Test func writtenAsItsWord() throws {
    let encoded = try JSONEncoder().encode([CoarseState.suspended, .notRunning])
    #expect(String(decoding: encoded, as: UTF8.self) == #"["suspended","notRunning"]"#)
  }

  @Test func readsTheFourWordsAndALifecycleStateName() throws {
    let words = #"["foreground","background","suspended","notRunning","foregroundActive","launching","terminated"]"#
    let states = try JSONDecoder().decode([CoarseState].self, from: Data(words.utf8))
    #expect(states == [.foreground, .background, .suspended, .notRunning, .foreground, .foreground, .notRunning])
  }

  @Test func refusesAnyOtherWordNamingTheFour() {
    #expect {
      try JSONDecoder().decode([CoarseState].self, from: Data(#"["asleep"]"#.utf8))
    } throws: { error in
      "\(error)".contains("\"asleep\" is not a state (foreground, background, suspended, notRunning)")
    }
  }

  @Test func everyLifecycleStateHasOne() {
    #expect(LifecycleState.allCases.map(\.coarseName) == LifecycleState.allCases.map(\.coarse.rawValue))
  }
}
