import Foundation
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamTestTraits
import JetsamValues
import Testing

@testable import JetsamShell
@testable import JetsamSpawning

/// The spawner service's messages: a spawn request travels with its descriptors in a stated order and comes out
/// the same on the other side; replies keep what jetsamd needs.
@Suite("Spawner messages", .offThePool)
struct SpawnerMessagesTests {
  @Test("a request names its descriptors in order, and the service rebuilds the same spawn request from them")
  func requestRoundTrip() throws {
    let fds = (0..<4).map { _ in FileDescriptor(rawValue: dup(0)) }
    defer { for fd in fds { fd.close() } }
    var user = SpawnUser(uid: 1003, gid: 1003, supplementaryGroups: [1003, 27])
    user.name = "lab"
    var spawn = SpawnRequest(
      arguments: ["/usr/bin/app", "--x"], environment: ["PATH=/bin", "A=b c"], workingDirectory: "/srv/app",
      user: user, cgroupDirectory: fds[0], joinProcsFiles: ["/sys/fs/cgroup/memory/a/cgroup.procs"],
      oomScoreAdj: 900, stdout: fds[1], stderr: fds[2], passedDescriptors: [(source: fds[3], target: 3)])
    spawn.ownCgroupNamespace = true
    spawn.label = "notes"
    let request = SpawnerRequest(id: 7, spawn)
    #expect(request.descriptors == ["cgroup", "stdout", "stderr", "3"])
    #expect(SpawnerRequest.attached(spawn).map(\.fd) == [fds[0], fds[1], fds[2], fds[3]])
    let bytes = try JSONEncoder.stable.encode(request)
    let decoded = try JSONDecoder().decode(SpawnerRequest.self, from: bytes)
    #expect(decoded == request)
    let rebuilt = try decoded.spawnRequest(with: [fds[0], fds[1], fds[2], fds[3]])
    #expect(rebuilt.arguments == spawn.arguments && rebuilt.environment == spawn.environment)
    #expect(rebuilt.workingDirectory == "/srv/app" && rebuilt.joinProcsFiles == spawn.joinProcsFiles)
    #expect(rebuilt.user?.uid == 1003 && rebuilt.user?.supplementaryGroups == [1003, 27])
    #expect(rebuilt.cgroupDirectory == fds[0] && rebuilt.stdin == nil && rebuilt.stdout == fds[1])
    #expect(rebuilt.passedDescriptors.map(\.target) == [3] && rebuilt.ownCgroupNamespace && rebuilt.oomScoreAdj == 900)
    #expect(rebuilt.label == "notes", "named again with the child's end")
  }

  @Test("descriptors that do not match their roles are refused as an invalid request, not guessed")
  func mismatchedDescriptors() throws {
    let request = SpawnerRequest(id: 1, SpawnRequest(arguments: ["/bin/true"], cgroupDirectory: nil))
    var bad = request
    bad.descriptors = ["stdout"]
    #expect(throws: SpawnError.self) { try bad.spawnRequest(with: []) }
    bad.descriptors = ["elsewhere"]
    let error = try #require(throws: SpawnError.self) { try bad.spawnRequest(with: [FileDescriptor(rawValue: 0)]) }
    #expect(error.stage == .invalidRequest && error.detail.contains("elsewhere"))
  }

  @Test("replies: a failure keeps its stage and errno; an exit its wait status and app")
  func replies() throws {
    let failed = SpawnerReply.failed(id: 3, SpawnError(stage: .chdir, errno: ENOENT, detail: "/srv/gone"))
    let decoded = try JSONDecoder().decode(SpawnerReply.self, from: try JSONEncoder.stable.encode(failed))
    #expect(decoded.spawnError == SpawnError(stage: .chdir, errno: ENOENT, detail: "/srv/gone"))
    let unknownStage = SpawnerReply(kind: .failed, id: 3, stage: "fromTheFuture", errno: 5)
    #expect(unknownStage.spawnError.stage == .spawnerService)
    #expect(ProcessEnd(reported: (11 & 0x7f) | 0x80) == .signaled(signal: 11, dumpedCore: true))
    #expect(ProcessEnd(reported: 3 << 8) == .exited(code: 3))
    #expect(ProcessEnd(reported: -1) == .unobserved)
    #expect(ProcessEnd.exited(code: 3).waitStatus == 3 << 8 && ProcessEnd.unobserved.waitStatus == nil)
    let exited = SpawnerReply.exited(pid: 42, waitStatus: 3 << 8, app: "notes")
    #expect(try JSONDecoder().decode(SpawnerReply.self, from: try JSONEncoder.stable.encode(exited)) == exited)
    let hello = SpawnerReply.hello(children: [], exits: [.init(pid: 42, waitStatus: 3 << 8, app: "notes")])
    #expect(
      try JSONDecoder().decode(SpawnerReply.self, from: try JSONEncoder.stable.encode(hello)).exits == hello.exits)
  }
}
