import Foundation
import JetsamCore
import JetsamValues
import Testing

/// Locked files at suspension: the locks seen with the stop, the check before it (`defer`) and at a suspend timeout, and
/// what `kill`, `defer` and `ignore` do.
@Suite("Locked files at suspension")
struct LockedFileTests {
  static let database = HeldLock(path: "/srv/shared/app.db", type: "posix", access: "write", pid: 10)

  /// App `a` (pid 10) in the background, with `rule`.
  static func policy(_ rule: LockedFileRule) throws -> JetsamPolicy {
    var policy = JetsamPolicy()
    _ = try policy.handle(
      .configure(app: "a", settings: AppSettings(launch: LaunchSpec(command: ["a"]), lockedFiles: rule), launchCount: 0)
    )
    _ = try policy.handle(.launch(app: "a", foreground: false, at: t(0)))
    _ = try policy.handle(.spawned(app: "a", pid: 10, at: t(0)))
    return policy
  }

  static func inspected(_ policy: inout JetsamPolicy, _ locks: [HeldLock], _ stage: LockCheckStage, at: Instant)
    -> [PolicyAction]
  {
    policy.observe(.locksInspected(app: "a", pid: 10, locks: locks, stage: stage, at: at))
  }

  @Test("kill: the app is suspended at once; locks seen with its stop kill it as suspended, 0xdead10cc")
  func killOnceStopped() throws {
    var policy = try Self.policy(LockedFileRule(action: .kill))
    let suspended = try policy.handle(.suspend(app: "a", at: t(1)))
    #expect(suspended.contains(.suspend(app: "a", pid: 10)), "no look before the stop under kill")
    #expect(!suspended.contains { if case .inspectLocks = $0 { true } else { false } })
    #expect(policy.app(named: "a")?.state == .suspended)
    let actions = policy.observe(.suspendCompleted(app: "a", locks: [Self.database], at: t(1, ms: 5)))
    #expect(actions.killed == ["a"])
    let record = try #require(policy.exits("a", sigkill, at: t(2)).records.first)
    #expect(record.cause.reason == .suspendedWithLockedFile)
    #expect(record.cause.terminationReason == "RUNNINGBOARD 0xdead10cc")
    #expect(record.lifecycle.state == .suspended)
    #expect(record.evidence.lockedFiles == [Self.database])
  }

  @Test("kill: a clean stop leaves the app suspended; one that never completes has its locks looked at on timeout")
  func killAtSuspendTimeout() throws {
    var clean = try Self.policy(LockedFileRule(action: .kill))
    _ = try clean.handle(.suspend(app: "a", at: t(1)))
    #expect(clean.observe(.suspendCompleted(app: "a", locks: [], at: t(1, ms: 5))).killed.isEmpty)
    #expect(clean.app(named: "a")?.state == .suspended)

    var stuck = try Self.policy(LockedFileRule(action: .kill))
    _ = try stuck.handle(.suspend(app: "a", at: t(1)))
    let timeout = try #require(stuck.nextDeadline)
    let actions = stuck.observe(.tick(at: timeout))
    #expect(actions.contains(.inspectLocks(app: "a", pid: 10, stage: .stopped)))
    #expect(Self.inspected(&stuck, [Self.database], .stopped, at: timeout).killed == ["a"])
  }

  @Test("defer: the app keeps running in the background, and the suspension is tried again after the retry")
  func deferred() throws {
    var policy = try Self.policy(LockedFileRule(action: .defer, retry: .seconds(2)))
    _ = try policy.handle(.suspend(app: "a", at: t(1)))
    let actions = Self.inspected(&policy, [Self.database], .beforeStop, at: t(1))
    #expect(actions == [.suspensionDeferred(app: "a", pid: 10, locks: [Self.database])])
    #expect(policy.app(named: "a")?.state == .background)
    #expect(policy.nextDeadline == t(3))
    // Still locked at the retry: deferred again; then the app commits, and the next retry suspends it.
    #expect(policy.observe(.tick(at: t(3))) == [.inspectLocks(app: "a", pid: 10, stage: .beforeStop)])
    #expect(Self.inspected(&policy, [Self.database], .beforeStop, at: t(3)).count == 1)
    #expect(policy.observe(.tick(at: t(5))) == [.inspectLocks(app: "a", pid: 10, stage: .beforeStop)])
    #expect(Self.inspected(&policy, [], .beforeStop, at: t(5)).contains(.suspend(app: "a", pid: 10)))
    #expect(policy.app(named: "a")?.state == .suspended)
  }

  @Test("defer once stopped: the app is resumed into the background")
  func deferredOnceStopped() throws {
    var policy = try Self.policy(LockedFileRule(action: .defer))
    _ = try policy.handle(.suspend(app: "a", at: t(1)))
    #expect(Self.inspected(&policy, [], .beforeStop, at: t(1)).contains(.suspend(app: "a", pid: 10)))
    let actions = policy.observe(.suspendCompleted(app: "a", locks: [Self.database], at: t(1)))
    #expect(actions.first == .resume(app: "a", pid: 10))
    #expect(policy.app(named: "a")?.state == .background)
    #expect(policy.nextDeadline == t(2))
  }

  @Test("only locks at or below the rule's paths count; ignore suspends without looking, and keeps what it sees")
  func pathsAndIgnore() throws {
    var policy = try Self.policy(LockedFileRule(action: .kill, paths: ["/srv/shared/"]))
    _ = try policy.handle(.suspend(app: "a", at: t(1)))
    let elsewhere = HeldLock(path: "/srv/shared-not/x.db", type: "flock", access: "write", pid: 10)
    #expect(policy.observe(.suspendCompleted(app: "a", locks: [elsewhere], at: t(1))).killed.isEmpty)
    #expect(policy.app(named: "a")?.state == .suspended)
    var ignoring = try Self.policy(LockedFileRule(action: .ignore))
    #expect(try ignoring.handle(.suspend(app: "a", at: t(1))).contains(.suspend(app: "a", pid: 10)))
    #expect(ignoring.observe(.suspendCompleted(app: "a", locks: [Self.database], at: t(1))).isEmpty)
    #expect(ignoring.app(named: "a")?.state == .suspended)
  }

  @Test("a check or a stop the app has moved on from decides nothing")
  func staleCheck() throws {
    var policy = try Self.policy(LockedFileRule(action: .defer))
    _ = try policy.handle(.suspend(app: "a", at: t(1)))
    _ = try policy.handle(.activate(app: "a", at: t(1)))
    #expect(Self.inspected(&policy, [Self.database], .beforeStop, at: t(1)).isEmpty)
    #expect(policy.app(named: "a")?.state == .foregroundActive)
    var killing = try Self.policy(LockedFileRule(action: .kill))
    _ = try killing.handle(.suspend(app: "a", at: t(1)))
    _ = try killing.handle(.activate(app: "a", at: t(1)))
    #expect(killing.observe(.suspendCompleted(app: "a", locks: [Self.database], at: t(1))).isEmpty)
    #expect(killing.app(named: "a")?.state == .foregroundActive)
  }

  @Test("a lockedFile kill in flight survives a restart in the state file")
  func killInFlightCodable() throws {
    let kill = KillInFlight(kill: .lockedFile([Self.database]), level: .normal, availableBytes: 1)
    #expect(try JSONDecoder().decode(KillInFlight.self, from: JSONEncoder().encode(kill)) == kill)
  }
}
