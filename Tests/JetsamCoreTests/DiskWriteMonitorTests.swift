import JetsamCore
import JetsamValues
import Testing

/// The disk-write monitor: which apps are read and when, the trailing window, one exception per window.
@Suite("Disk-write monitor")
struct DiskWriteMonitorTests {
  /// 1,000 bytes over 12 s: read every second.
  static let limit = DiskWriteLimit(bytes: 1000, window: .seconds(12))

  /// Configures, launches and spawns app `name` (in the background) with `limit`.
  static func start(
    _ policy: inout JetsamPolicy, _ name: String, pid: Int32, limit: DiskWriteLimit? = DiskWriteMonitorTests.limit,
    at: Instant = t(0)
  ) throws {
    var settings = AppSettings(launch: LaunchSpec(command: [name]))
    settings.diskWrites = limit
    _ = try policy.handle(.configure(app: name, settings: settings, launchCount: 0))
    _ = try policy.handle(.launch(app: name, foreground: false, at: at))
    _ = try policy.handle(.spawned(app: name, pid: pid, at: at))
  }

  /// The apps a tick at `at` asks to read (nil: no round).
  static func sampled(_ policy: inout JetsamPolicy, at: Instant) -> [AppProcessRef]? {
    for action in policy.observe(.tick(at: at)) { if case .sampleDiskWrites(let apps) = action { return apps } }
    return nil
  }

  /// Feeds app `a` (pid 10) a reading of `bytes` at `at`; the disk-write exceptions it led to.
  @discardableResult
  static func reading(_ policy: inout JetsamPolicy, _ bytes: Int64, at: Instant, app: String = "a", pid: Int32 = 10)
    -> [DiskWriteReport]
  {
    policy.observe(.diskWritesSampled([DiskWriteSample(app: app, pid: pid, bytesWritten: bytes)], at: at)).compactMap {
      if case .diagnose(app, pid, .diskWriteException(let report)) = $0 { return report }
      return nil
    }
  }

  @Test("the cadence is a twelfth of the window, between 100 ms and a minute")
  func cadence() {
    #expect(DiskWriteLimit.iOS.sampleInterval == .seconds(60))
    #expect(DiskWriteLimit(bytes: 1, window: .seconds(12)).sampleInterval == .seconds(1))
    #expect(DiskWriteLimit(bytes: 1, window: .seconds(1)).sampleInterval == .milliseconds(100))
    #expect(DiskWriteLimit.iOS.bytes == 1 << 30 && DiskWriteLimit.iOS.window == .seconds(86_400))
  }

  @Test("running apps with a limit are read, a suspended one and one without a limit are not, and none costs nothing")
  func whoIsSampled() throws {
    var policy = JetsamPolicy()
    #expect(policy.nextDeadline == nil)
    try Self.start(&policy, "a", pid: 10)
    try Self.start(&policy, "off", pid: 11, limit: nil)
    try Self.start(&policy, "s", pid: 12)
    _ = try policy.handle(.suspend(app: "s", at: t(0)))
    _ = policy.observe(.suspendCompleted(app: "s", at: t(0)))
    #expect(policy.nextDeadline == t(1))
    #expect(Self.sampled(&policy, at: t(1)) == [AppProcessRef(app: "a", pid: 10)])
    #expect(policy.nextDeadline == t(2))
    _ = try policy.handle(.resume(app: "s", at: t(2)))
    #expect(Self.sampled(&policy, at: t(2)) == [AppProcessRef(app: "a", pid: 10), AppProcessRef(app: "s", pid: 12)])
    _ = try policy.handle(.suspend(app: "a", at: t(2)))
    _ = try policy.handle(.suspend(app: "s", at: t(2)))
    #expect(Self.sampled(&policy, at: t(3)) == nil, "every watched app is suspended: no round")
    #expect(policy.nextDeadline == nil, "and none is due until one runs again")
    _ = try policy.handle(.resume(app: "a", at: t(10)))
    #expect(policy.nextDeadline == t(11))
  }

  @Test("under the limit no exception; over it, one diagnostic with what was written in the window")
  func underAndOver() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "a", pid: 10)
    #expect(Self.reading(&policy, 500, at: t(1)).isEmpty)
    #expect(Self.reading(&policy, 1000, at: t(2)).isEmpty, "at the limit is within it")
    let reports = Self.reading(&policy, 1001, at: t(3))
    #expect(
      reports == [DiskWriteReport(bytesWritten: 1001, windowSeconds: 12, sampledSeconds: 3, limitBytes: 1000)],
      "what it wrote before the first reading counts: the counter starts at its spawn")
    #expect(policy.app(named: "a")?.state == .background, "non-fatal: no kill")
  }

  @Test("the window trails: old writes fall out of it")
  func trailingWindow() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "a", pid: 10)
    // 900 bytes at once, then nothing: a window later they are out of it, and 900 more fit again.
    #expect(Self.reading(&policy, 900, at: t(1)).isEmpty)
    for second in Int64(2)...14 { #expect(Self.reading(&policy, 900, at: t(second)).isEmpty) }
    #expect(Self.reading(&policy, 1800, at: t(15)).isEmpty, "the first 900 were written more than 12 s ago")
    // 150 more a second later are 1,050 within the window ending then.
    #expect(Self.reading(&policy, 1950, at: t(16)).map(\.bytesWritten) == [1050])
  }

  @Test("once over, one exception per window; a later stretch over it is a new one")
  func oncePerWindow() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "a", pid: 10)
    #expect(Self.reading(&policy, 2000, at: t(1)).count == 1)
    for second in Int64(2)...12 {
      #expect(Self.reading(&policy, 2000 + second * 200, at: t(second)).isEmpty, "still over at \(second) s")
    }
    #expect(Self.reading(&policy, 2000 + 13 * 200, at: t(13)).count == 1, "a window after the first")
  }

  @Test("a counter that falls (a child gone from the sum) neither counts twice nor goes back")
  func fallingCounter() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "a", pid: 10)
    #expect(Self.reading(&policy, 800, at: t(1)).isEmpty)
    #expect(Self.reading(&policy, 300, at: t(2)).isEmpty, "a child's 500 bytes left the sum")
    #expect(Self.reading(&policy, 800, at: t(3)).isEmpty, "and came back in its parent's: counted once")
    #expect(Self.reading(&policy, 1001, at: t(4)).count == 1)
  }

  @Test("each app is judged by its own limit")
  func perAppLimit() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "a", pid: 10)
    try Self.start(&policy, "big", pid: 11, limit: DiskWriteLimit(bytes: 5000, window: .seconds(12)))
    #expect(Self.reading(&policy, 3000, at: t(1)).count == 1)
    #expect(Self.reading(&policy, 3000, at: t(1), app: "big", pid: 11).isEmpty)
    #expect(Self.reading(&policy, 5001, at: t(2), app: "big", pid: 11).count == 1)
  }

  @Test("readings of an app without a limit, an old pid or an unknown app change nothing")
  func ignoredReadings() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "off", pid: 11, limit: nil)
    try Self.start(&policy, "a", pid: 10)
    #expect(Self.reading(&policy, 1 << 40, at: t(1), app: "off", pid: 11).isEmpty)
    #expect(Self.reading(&policy, 1 << 40, at: t(1), app: "a", pid: 99).isEmpty)
    #expect(Self.reading(&policy, 1 << 40, at: t(1), app: "nobody", pid: 10).isEmpty)
    #expect(Self.reading(&policy, 10, at: t(2)).isEmpty)
  }

  @Test("a new launch starts a new watch from zero")
  func newLaunch() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "a", pid: 10)
    #expect(Self.reading(&policy, 900, at: t(1)).isEmpty)
    _ = policy.observe(.exited(app: "a", pid: 10, end: .exited(code: 0), oomKilled: false, at: t(2)))
    _ = try policy.handle(.launch(app: "a", foreground: false, at: t(3)))
    _ = try policy.handle(.spawned(app: "a", pid: 20, at: t(3)))
    #expect(Self.reading(&policy, 900, at: t(4), pid: 20).isEmpty, "the first launch's 900 bytes are not this one's")
  }
}
