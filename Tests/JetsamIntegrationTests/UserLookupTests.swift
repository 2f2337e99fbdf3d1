import Foundation
import Glibc
import JetsamControlClient
import JetsamDaemonProcess
import JetsamTestKit
import JetsamTestTraits
import Testing

/// User and group lookups happen off the loop: with a directory that takes 2 s per lookup (a preload that slows
/// `getgrouplist`, standing in for sssd or LDAP), another client is answered meanwhile and the slow one is still
/// served as before.
@Suite("User lookups", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"), .offThePool)
struct UserLookupTests {
  /// The preload built from `Fixtures/slow_lookups.c`, and the file it marks each slow lookup in.
  final class SlowDirectory {
    let directory = NSTemporaryDirectory() + "jetsam-slow-lookups-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    var library: String { directory + "/slow_lookups.so" }
    var marker: String { directory + "/lookups" }

    init() throws {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      // The daemon runs as root, but the library must be readable to be preloaded at all.
      chmod(directory, 0o755)
      let source = Binaries.packageRoot + "/Tests/JetsamIntegrationTests/Fixtures/slow_lookups.c"
      let built = try runCommand("/usr/bin/cc", ["-shared", "-fPIC", "-o", library, source, "-ldl"])
      guard built.status == 0 else { throw TestKitError("building the slow-lookup preload: \(built.stderr)") }
    }

    /// jetsamd's environment: the preload, and where it marks the lookups.
    var environment: [String: String] { ["LD_PRELOAD": library, "JETSAM_SLOW_LOOKUP_MARKER": marker] }

    /// The users whose lookups have started so far.
    var lookups: [String] {
      ((try? String(contentsOfFile: marker, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
  }

  /// While `client` waits for a lookup of `user`, root's `status` on a connection of its own is answered
  /// promptly; then `client` is answered and ends well.
  private func expectServedMeanwhile(
    _ client: ChildProcess, waitingFor user: String, slow: SlowDirectory, daemon: DaemonHarness
  ) throws {
    try daemon.waitUntil("the lookup of \(user) to start") { slow.lookups.contains(user) }
    let root = try ControlClient(path: daemon.socket)
    let start = MonotonicTime.now()
    let (code, message) = try root.errorFor(#"{"v":1,"verb":"status"}"#)
    let seconds = MonotonicTime.seconds(since: start)
    #expect(code == nil, "\(message)")
    // The bound is generous (the machine is shared); a lookup on the loop would hold this for the whole 2 s.
    #expect(seconds < 0.5 * TestTiming.slowdown, "root's status took \(seconds) s while the lookup of \(user) ran")
    #expect(client.isRunning, "the client still waits for its lookup, so the two overlapped")
    #expect(client.waitForExit(timeout: 15), "the client is answered once its lookup is back")
    #expect(client.terminationStatus == 0, "\(client.log.text)")
  }

  @Test("while a member's group check waits 2 s on the directory, root's status is answered; then the member is served")
  func memberCheckOffTheLoop() throws {
    let slow = try SlowDirectory()
    let daemon = try DaemonHarness(config: #"{ controlGroup: "nogroup" }"#, environment: slow.environment)
    defer { daemon.stop() }
    // nobody connects with its primary group (nogroup, the control group): a member, after the check.
    let member = try ChildProcess(
      "/usr/bin/setpriv", daemon.ctlArguments(asUser: "nobody", group: "nogroup", ["--json", "status"]))
    defer { _ = member.stop(signal: SIGKILL) }
    try expectServedMeanwhile(member, waitingFor: "nobody", slow: slow, daemon: daemon)
    #expect(member.log.text.contains("\"uptimeSeconds\""), "the member got the status: \(member.log.text)")

    // An outsider is still refused by its credentials, after its own lookup.
    chmod(daemon.socket, 0o666)
    let outsider = try daemon.ctl(asUser: "daemon", group: "daemon", ["status"])
    #expect(outsider.status == 1)
    #expect(outsider.stderr.contains("permission denied"), "\(outsider.stderr)")
  }

  @Test("while a launch as a user waits 2 s on the directory, root's status is answered; then the app runs as it")
  func launchLookupOffTheLoop() throws {
    let slow = try SlowDirectory()
    let daemon = try DaemonHarness(
      config: #"{ apps: { asNobody: { command: ["/bin/sleep", "100"], user: "nobody" } } }"#,
      environment: slow.environment)
    defer { daemon.stop() }
    let launch = try ChildProcess(
      Binaries.current.jetsamctl, ["--socket", daemon.socket, "--json", "launch", "asNobody", "--background"])
    defer { _ = launch.stop(signal: SIGKILL) }
    try expectServedMeanwhile(launch, waitingFor: "nobody", slow: slow, daemon: daemon)
    let pid = try #require(try daemon.apps()["asNobody"]?.status.pid, "asNobody runs")
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let uid = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }?.split(separator: "\t").dropFirst().first
    #expect(uid.map(String.init) == String(getpwnam("nobody").pointee.pw_uid), "the app runs as nobody: \(status)")
  }
}
