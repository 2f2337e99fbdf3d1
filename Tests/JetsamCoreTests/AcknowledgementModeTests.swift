import JetsamCore
import Testing

/// Whether an app's lifecycle events are watched is the policy's decision, from the app's configured mode and
/// what it says on its channel; hooks answer for programs that cannot.
@Suite("Acknowledgement modes and hooks")
struct AcknowledgementModeTests {
  static func launch(
    _ policy: inout JetsamPolicy, mode: AcknowledgementMode, hooks: [AppEventKind: AppHook] = [:]
  ) throws -> [PolicyAction] {
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0, acknowledgements: mode, hooks: hooks))
    _ = try policy.handle(.launch(app: "a", foreground: true, at: t(0)))
    return policy.observe(.spawned(app: "a", pid: 10, at: t(0)))
  }

  @Test("always: watched from launch, before the app says anything")
  func always() throws {
    var policy = JetsamPolicy()
    _ = try Self.launch(&policy, mode: .always)
    #expect(policy.nextDeadline == t(20), "didFinishLaunching's deadline runs from launch")
    #expect(policy.observe(.tick(at: t(20))).killed == ["a"])
  }

  @Test("auto: watched from the app's first valid message, whatever it is")
  func auto() throws {
    var policy = JetsamPolicy()
    _ = try Self.launch(&policy, mode: .auto)
    #expect(policy.nextDeadline == nil)
    policy.observe(.appMessage(app: "a", pid: 10, message: .backgroundTimeRemaining(requestID: 1), at: t(3)))
    #expect(policy.nextDeadline == t(23), "didFinishLaunching's 20 s, from then")
  }

  @Test("never: not watched, even after hello")
  func never() throws {
    var policy = JetsamPolicy()
    _ = try Self.launch(&policy, mode: .never)
    policy.observe(.appMessage(app: "a", pid: 10, message: .hello, at: t(1)))
    #expect(policy.nextDeadline == nil)
    #expect(policy.observe(.tick(at: t(60))).isEmpty)
  }

  @Test("a signal hook sends its signal with the event, and does not make the event watched")
  func signalHook() throws {
    var policy = JetsamPolicy()
    let actions = try Self.launch(&policy, mode: .auto, hooks: [.didBecomeActive: .signal(.user1)])
    #expect(actions.contains(.signal(app: "a", pid: 10, signal: .user1)))
    #expect(policy.nextDeadline == nil)
  }

  @Test("a willTerminate command hook runs before the SIGTERM, which follows its end")
  func terminateHook() throws {
    var policy = JetsamPolicy()
    _ = try Self.launch(&policy, mode: .never, hooks: [.willTerminate: .command(["/bin/true"], timeout: .seconds(3))])
    let asked = try policy.handle(.terminate(app: "a", at: t(5)))
    let hook = asked.compactMap { if case .runHook(_, _, let event, _, _) = $0 { event } else { nil } }.first
    #expect(hook?.kind == .willTerminate)
    #expect(!asked.contains(.terminate(app: "a", pid: 10)))
    let ended = policy.observe(.hookEnded(app: "a", pid: 10, event: hook?.id ?? 0, at: t(6)))
    #expect(ended == [.acknowledged(app: "a", pid: 10, event: .willTerminate), .terminate(app: "a", pid: 10)])
  }
}
