import JetsamCore
import Testing

@testable import JetsamShell

/// Band changes follow into every process's `oom_score_adj`, a loop turn later, a slice of apps at a time, and not
/// while stops are being checked (unless one takes more than 50 ms).
@Suite("OOM score writer")
struct OOMScoreWriterTests {
  final class Harness {
    let loop = FakeLoop()
    let signals = FakeSignals()
    var busy = false
    var apps: [String: AppProcess] = [:]
    /// The apps looked up, each with the number of the loop turn it was looked up in.
    var lookups: [(name: String, turn: Int)] = []
    private(set) lazy var afterStops = AfterStopChecks(loop: loop, isIdle: { [unowned self] in !self.busy })
    private(set) lazy var writer = OOMScoreWriter(
      signals: signals, afterStops: afterStops,
      processes: { [unowned self] name in
        self.lookups.append((name, self.loop.timerFirings))
        return self.apps[name]
      },
      score: { band in Int32(band.rawValue * 100) })

    /// App `name` running as `pid`, with `others` in its cgroup.
    func run(_ name: String, pid: Int32, others: [Int32] = []) {
      apps[name] = runningApp(name, pid: pid, others: others).app
    }
  }

  @Test("a band change reaches every process of the app on the next loop turn, not at once")
  func nextTurn() {
    let harness = Harness()
    harness.run("a", pid: 10, others: [11, 12])
    harness.writer.bandChanged("a", to: .foreground)
    #expect(harness.signals.scores.isEmpty, "written before the current events were done")
    harness.loop.advance(by: .zero)
    #expect(harness.signals.scores == [10: 1000, 11: 1000, 12: 1000])
  }

  @Test("the last band wins; an app forgotten or gone gets nothing, the others theirs")
  func lastBandWins() {
    let harness = Harness()
    harness.run("a", pid: 10)
    harness.run("b", pid: 20)
    harness.writer.bandChanged("a", to: .foreground)
    harness.writer.bandChanged("a", to: .idle)
    harness.writer.bandChanged("b", to: .background)
    harness.writer.bandChanged("c", to: .background)
    harness.writer.forget("b")
    harness.loop.advance(by: .zero)
    #expect(harness.signals.scores == [10: 0])
    #expect(harness.lookups.map(\.name).sorted() == ["a", "c"], "a forgotten app is not even looked up")
  }

  @Test("while stops are being checked the scores wait until they are seen, 50 ms at most")
  func waitsForStops() {
    let harness = Harness()
    harness.run("a", pid: 10)
    harness.busy = true
    harness.writer.bandChanged("a", to: .background)
    harness.loop.advance(by: .milliseconds(3))
    #expect(harness.signals.scores.isEmpty && harness.lookups.isEmpty)
    harness.busy = false
    harness.afterStops.stopsSeen()
    #expect(harness.signals.scores.isEmpty, "written in the loop's next turn")
    harness.loop.advance(by: .zero)
    #expect(harness.signals.scores == [10: 300])

    // A stop that stays pending (a process in uninterruptible sleep) holds the scores 50 ms, no longer.
    harness.busy = true
    harness.writer.bandChanged("a", to: .idle)
    harness.loop.advance(by: .milliseconds(49))
    #expect(harness.signals.scores == [10: 300])
    harness.loop.advance(by: .milliseconds(1))
    #expect(harness.signals.scores == [10: 0])
  }

  @Test("at most 64 apps a loop turn: 100 apps take two turns, all written")
  func slices() {
    let harness = Harness()
    for index in 0..<100 {
      harness.run("app\(index)", pid: Int32(1000 + index))
      harness.writer.bandChanged("app\(index)", to: .idle)
    }
    harness.loop.advance(by: .zero)
    #expect(harness.signals.scores.count == 100)
    let perTurn = Dictionary(grouping: harness.lookups, by: \.turn).mapValues(\.count)
    #expect(perTurn.values.sorted() == [36, OOMScoreWriter.appsPerTurn])
  }
}
