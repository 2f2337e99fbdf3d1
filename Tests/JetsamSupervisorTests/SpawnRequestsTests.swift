import Foundation
import Glibc
import JetsamCore
import JetsamPlatform
import Testing

@testable import JetsamShell

/// How hooks' requests, working directories and logs are made from the config: the environment a hook starts with,
/// where an app starts when its config names no directory, and the log that is never opened through a symlink.
@Suite("Spawn requests")
struct SpawnRequestsTests {
  final class Harness {
    let directory: String
    let requests: SpawnRequests

    init() throws {
      directory = NSTemporaryDirectory() + "jetsam-requests-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
      try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
      requests = SpawnRequests(stateDirectory: directory)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
  }

  @Test("a hook runs its command in the app's cgroup, with PATH, the app and the event as its only environment")
  func hook() throws {
    let harness = try Harness()
    let cgroup = FakeCgroup(name: "mail", limits: AppLimits())
    let output = scratchDescriptor()
    defer { output.close() }
    let request = try harness.requests.hook(
      ["/bin/flush", "--all"], event: .didEnterBackground, app: "mail", workingDirectory: "/srv/mail", cgroup: cgroup,
      oomScoreAdj: 700, output: output)
    #expect(request.arguments == ["/bin/flush", "--all"])
    #expect(
      request.environment == [
        "PATH=/usr/local/bin:/usr/bin:/bin", "JETSAM_APP=mail", "JETSAM_EVENT=didEnterBackground",
      ])
    #expect(request.workingDirectory == "/srv/mail")
    #expect(request.cgroupDirectory?.rawValue == cgroup.spawnDirectory.rawValue && request.oomScoreAdj == 700)
    #expect(request.stdout?.rawValue == output.rawValue && request.stderr?.rawValue == output.rawValue)
    #expect(!request.ownCgroupNamespace)
    harness.requests.cgroupNamespaces = true
    let namespaced = try harness.requests.hook(
      ["/bin/save"], event: .willTerminate, app: "mail", workingDirectory: nil, cgroup: cgroup, oomScoreAdj: 0,
      output: output)
    #expect(namespaced.ownCgroupNamespace)
    #expect(namespaced.workingDirectory == harness.directory + "/apps/mail", "the app's own directory")
  }

  @Test("a hook and a command run as the app's launch runs, in its user's home, never with jetsamd's rights")
  func hookRunsAsTheApp() throws {
    let harness = try Harness()
    let cgroup = FakeCgroup(name: "db", limits: AppLimits())
    let output = scratchDescriptor()
    defer { output.close() }
    var user = SpawnUser(uid: geteuid() &+ 1, gid: 1)
    user.home = "/"
    harness.requests.launchRuns("db", as: user)
    let request = try harness.requests.hook(
      ["/bin/save"], event: .didEnterBackground, app: "db", workingDirectory: nil, cgroup: cgroup, oomScoreAdj: 0,
      output: output, stdout: nil)
    #expect(request.user?.uid == user.uid && request.workingDirectory == "/")
    harness.requests.forgetUser(of: "db")
    let after = try harness.requests.hook(
      ["/bin/save"], event: .didEnterBackground, app: "db", workingDirectory: "/srv", cgroup: cgroup, oomScoreAdj: 0,
      output: output)
    #expect(after.user == nil, "an app of jetsamd's own user")
  }

  @Test("an app of jetsamd's own user starts in its own directory below the state directory, made private")
  func ownDirectory() throws {
    let harness = try Harness()
    let path = try harness.requests.defaultWorkingDirectory(for: nil, app: "notes")
    #expect(path == harness.directory + "/apps/notes")
    var st = stat()
    try #require(stat(path, &st) == 0)
    #expect(st.st_mode & S_IFMT == S_IFDIR && st.st_mode & 0o777 == 0o700)
    #expect(try harness.requests.defaultWorkingDirectory(for: nil, app: "notes") == path, "made once, used again")
  }

  @Test("a symlink planted for an app's directory is refused")
  func plantedSymlink() throws {
    let harness = try Harness()
    try FileManager.default.createDirectory(atPath: harness.directory + "/apps", withIntermediateDirectories: true)
    try #require(symlink("/tmp", harness.directory + "/apps/evil") == 0)
    #expect(throws: SystemError.self) { try harness.requests.defaultWorkingDirectory(for: nil, app: "evil") }
  }

  @Test("another user's app starts in that user's home, or / when it has none")
  func anotherUsersHome() throws {
    let harness = try Harness()
    var user = SpawnUser(uid: geteuid() &+ 1, gid: 1)
    user.home = harness.directory
    #expect(try harness.requests.defaultWorkingDirectory(for: user, app: "a") == harness.directory)
    user.home = harness.directory + "/missing"
    #expect(try harness.requests.defaultWorkingDirectory(for: user, app: "a") == "/")
    #expect(!FileManager.default.fileExists(atPath: harness.directory + "/apps"), "nothing made for another user")
  }

  @Test("an app's log is appended to, and never opened through a symlink")
  func log() throws {
    let harness = try Harness()
    for line in ["one\n", "two\n"] {
      let log = try harness.requests.openLog("mail")
      _ = line.withCString { write(log.rawValue, $0, strlen($0)) }
      log.close()
    }
    let text = try String(contentsOfFile: harness.directory + "/logs/mail.log", encoding: .utf8)
    #expect(text == "one\ntwo\n")
    try #require(symlink(harness.directory + "/elsewhere", harness.directory + "/logs/evil.log") == 0)
    #expect(throws: (any Error).self) { try harness.requests.openLog("evil") }
    #expect(!FileManager.default.fileExists(atPath: harness.directory + "/elsewhere"))
  }
}
