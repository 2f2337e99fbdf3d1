import JetsamValues
import Testing

@testable import JetsamCore

/// The disk-write monitor driven alone: it reads whether an app runs from an app table it never changes.
@Suite("Disk-write monitor, alone")
struct DiskWriteMonitorMachineTests {
  /// 1,000 bytes over 12 s: readings every second.
  static let limit = DiskWriteLimit(bytes: 1000, window: .seconds(12))

  /// A table with app `name` in `state`, process `pid` spawned at 0.
  static func apps(_ state: LifecycleState, name: String = "a", pid: Int32 = 1) -> AppTable {
    var apps = AppTable()
    var app = TrackedApp(name: name, launch: 1, at: t(0))
    app.state = state
    app.process = RunningProcess(pid: pid, spawnedAt: t(0), previousDigest: nil)
    apps[name] = app
    return apps
  }

  @Test("a running watched app is read on its cadence; a suspended one is not; the end forgets it")
  func schedule() {
    var monitor = DiskWriteMonitor()
    let running = Self.apps(.background)
    monitor.rewatch("a", pid: 1, spawnedAt: t(0), limit: nil, apps: running, at: t(0))
    #expect(!monitor.isWatching("a") && monitor.nextRoundAt == nil, "no limit, no watch")
    monitor.rewatch("a", pid: 1, spawnedAt: t(0), limit: Self.limit, apps: running, at: t(0))
    #expect(monitor.nextRoundAt == t(1))
    let due1 = monitor.tick(at: t(1), apps: running)
    #expect(due1 == [AppProcessRef(app: "a", pid: 1)])
    let suspended = Self.apps(.suspended)
    #expect(monitor.isWatching("a") && !monitor.isSampled("a", apps: suspended))
    let due2 = monitor.tick(at: t(2), apps: suspended)
    #expect(due2.isEmpty)
    #expect(monitor.nextRoundAt == nil, "no running watched app: no round")
    monitor.forget("a")
    #expect(!monitor.isWatching("a"))
  }

  @Test("writes over the limit within the window are reported once per window; the total never falls")
  func judgement() {
    var monitor = DiskWriteMonitor()
    let apps = Self.apps(.background)
    monitor.rewatch("a", pid: 1, spawnedAt: t(0), limit: Self.limit, apps: apps, at: t(0))
    let taken1 = monitor.add(DiskWriteSample(app: "a", pid: 2, bytesWritten: 5000), at: t(1))
    #expect(taken1 == nil, "another process")
    let taken2 = monitor.add(DiskWriteSample(app: "a", pid: 1, bytesWritten: 500), at: t(1))
    #expect(taken2 == 500)
    let judgement1 = monitor.judge("a", at: t(1))
    #expect(judgement1 == nil)
    let taken3 = monitor.add(DiskWriteSample(app: "a", pid: 1, bytesWritten: 1500), at: t(2))
    #expect(taken3 == 1500)
    let judgement2 = monitor.judge("a", at: t(2))
    #expect(judgement2?.bytesWritten == 1500)
    _ = monitor.add(DiskWriteSample(app: "a", pid: 1, bytesWritten: 3000), at: t(3))
    let judgement3 = monitor.judge("a", at: t(3))
    #expect(judgement3 == nil, "once per window")
  }
}
