import JetsamCore
import JetsamValues
import Testing

@Suite("Sockets at suspension")
struct SocketsAtSuspensionTests {
  static let connection = DefunctedSocket(
    protocol: "tcp", local: "127.0.0.1:41234", remote: "127.0.0.1:8080", state: "established", pid: 10)

  /// Starts `name` in the background with the rule `sockets`.
  static func start(_ policy: inout JetsamPolicy, _ name: String, pid: Int32, sockets: SocketsAtSuspension) throws {
    _ = try policy.handle(
      .configure(
        app: name, settings: AppSettings(launch: LaunchSpec(command: [name]), sockets: sockets), launchCount: 0))
    _ = try policy.handle(.launch(app: name, foreground: false, at: t(1)))
    _ = try policy.handle(.spawned(app: name, pid: pid, at: t(1)))
  }

  @Test("under defunct, a completed suspension destroys the app's sockets; under keep, nothing is asked")
  func defunctOrKeep() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "a", pid: 10, sockets: .defunct)
    try Self.start(&policy, "b", pid: 11, sockets: .keep)
    // Not while its processes are still stopping: only once the last one is seen stopped.
    let requested = try policy.handle(.suspend(app: "a", at: t(2)))
    #expect(requested.contains(.suspend(app: "a", pid: 10)))
    #expect(!requested.contains(.defunctSockets(app: "a", pid: 10)))
    _ = try policy.handle(.suspend(app: "b", at: t(2)))
    #expect(policy.observe(.suspendCompleted(app: "a", at: t(3))) == [.defunctSockets(app: "a", pid: 10)])
    #expect(policy.observe(.suspendCompleted(app: "b", at: t(3))) == [])
  }

  @Test("the default rule of the core keeps sockets (the config's default is defunct)")
  func coreDefaultKeeps() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(1))
    _ = try policy.handle(.suspend(app: "a", at: t(2)))
    #expect(policy.observe(.suspendCompleted(app: "a", at: t(3))) == [])
    #expect(AppSettings(launch: nil).sockets == .keep)
  }

  @Test("an app's own rule is what counts: a configure with keep replaces defunct at its next launch")
  func perAppOverride() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "a", pid: 10, sockets: .defunct)
    _ = try policy.handle(.suspend(app: "a", at: t(2)))
    #expect(policy.observe(.suspendCompleted(app: "a", at: t(3))) == [.defunctSockets(app: "a", pid: 10)])
    _ = try policy.handle(.kill(app: "a", reason: .memoryPressure, at: t(4)))
    _ = policy.observe(.exited(app: "a", pid: 10, end: sigkill, oomKilled: false, at: t(5)))
    try Self.start(&policy, "a", pid: 12, sockets: .keep)
    _ = try policy.handle(.suspend(app: "a", at: t(6)))
    #expect(policy.observe(.suspendCompleted(app: "a", at: t(7))) == [])
  }

  @Test("an app that is not suspended has no sockets defuncted: a stop seen after its return decides nothing")
  func notForAnAppThatIsNotSuspended() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "a", pid: 10, sockets: .defunct)
    _ = try policy.handle(.suspend(app: "a", at: t(2)))
    _ = try policy.handle(.resume(app: "a", at: t(3)))
    #expect(policy.observe(.suspendCompleted(app: "a", at: t(4))) == [])
    _ = try policy.handle(.activate(app: "a", at: t(5)))
    #expect(policy.observe(.suspendCompleted(app: "a", at: t(6))) == [])
    #expect(policy.observe(.suspendCompleted(app: "ghost", at: t(6))) == [])
  }

  @Test("a suspended app continued by another process and stopped again has its sockets defuncted again")
  func againAfterAContinuation() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "a", pid: 10, sockets: .defunct)
    _ = try policy.handle(.suspend(app: "a", at: t(2)))
    _ = policy.observe(.suspendCompleted(app: "a", at: t(3)))
    _ = policy.observe(.continuedWhileSuspended(app: "a", pid: 10, at: t(4)))
    #expect(policy.observe(.suspendCompleted(app: "a", at: t(5))) == [.defunctSockets(app: "a", pid: 10)])
  }

  @Test("what was defuncted, or what went wrong, is told; nothing is told of nothing or of an earlier launch")
  func announced() throws {
    var policy = JetsamPolicy()
    try Self.start(&policy, "a", pid: 10, sockets: .defunct)
    _ = try policy.handle(.suspend(app: "a", at: t(2)))
    _ = policy.observe(.suspendCompleted(app: "a", at: t(3)))
    let told = policy.observe(
      .socketsDefuncted(app: "a", pid: 10, sockets: [Self.connection], problem: nil, at: t(3, ms: 5)))
    #expect(told == [.socketsDefuncted(app: "a", pid: 10, sockets: [Self.connection], problem: nil)])
    let failed = policy.observe(
      .socketsDefuncted(app: "a", pid: 10, sockets: [], problem: "SOCK_DESTROY: EPERM", at: t(3, ms: 6)))
    #expect(failed == [.socketsDefuncted(app: "a", pid: 10, sockets: [], problem: "SOCK_DESTROY: EPERM")])
    #expect(policy.observe(.socketsDefuncted(app: "a", pid: 10, sockets: [], problem: nil, at: t(4))) == [])
    #expect(
      policy.observe(.socketsDefuncted(app: "a", pid: 99, sockets: [Self.connection], problem: nil, at: t(4))) == [])
  }
}
