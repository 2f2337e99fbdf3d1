import JetsamValues
import Testing

@testable import JetsamCore

/// The exit book driven alone: last exits, and the ended ad-hoc apps it forgets.
@Suite("Exit book, alone")
struct ExitBookMachineTests {
  static func record(_ app: String, launch: Int) -> ExitRecord {
    ExitRecord(
      app: app, pid: 1, launch: launch,
      cause: ExitCause(reason: .normalAppExit, terminationReason: "", exitCode: 0),
      lifecycle: ExitLifecycle(state: .background, aliveSeconds: 1, stateSeconds: 1),
      pressure: ExitPressure(level: .normal, availableBytes: 0))
  }

  @Test("a record of an older launch does not replace a newer one")
  func olderLaunch() {
    var book = ExitBook()
    book.decided(Self.record("a", launch: 2))
    let taken = book.recorded(Self.record("a", launch: 1))
    #expect(!taken && book.last(of: "a")?.launch == 2)
    let newer = book.recorded(Self.record("a", launch: 3))
    #expect(newer && book.all.map(\.launch) == [3])
  }

  @Test("past the remembered count the longest ended are forgotten, but not one configured or running again")
  func forgetting() {
    var book = ExitBook()
    var apps = AppTable()
    var running = TrackedApp(name: "b", settings: AppSettings(launch: nil, adHoc: true), launch: 1, at: t(0))
    running.state = .background
    apps["b"] = running
    for name in ["a", "b", "c"] { _ = book.recorded(Self.record(name, launch: 1)) }
    let first = book.ended("a", remembered: 1, apps: apps)
    let second = book.ended("b", remembered: 1, apps: apps)
    #expect(first.isEmpty && second == ["a"])
    let third = book.ended("c", remembered: 1, apps: apps)
    #expect(third.isEmpty, "b runs again: not forgotten")
    #expect(book.last(of: "a") == nil && book.last(of: "b") != nil)
  }
}
