import JetsamCore
import Testing

@testable import JetsamLab

/// A scenario's `expect: { state: … }` word, read into the state it names and matched against an app's lifecycle
/// state: a coarse word holds for every lifecycle state within it, a lifecycle word for that state only.
struct ExpectedStateTests {
  @Test(
    "each word holds for the lifecycle states it names, and no other",
    arguments: [
      ("foreground", [LifecycleState.launching, .foregroundActive, .foregroundInactive]),
      ("background", [.background]), ("suspended", [.suspended]), ("notRunning", [.notRunning, .terminated]),
      ("foregroundActive", [.foregroundActive]), ("terminated", [.terminated]),
    ])
  func holds(word: String, states: [LifecycleState]) throws {
    let expected = try #require(ExpectedState(word))
    #expect(LifecycleState.allCases.filter(expected.holds(for:)) == states)
    #expect(expected.description == word)
  }

  @Test("a word that names no state is refused")
  func unknown() {
    #expect(ExpectedState("dancing") == nil)
  }
}
