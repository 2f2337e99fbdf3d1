import FoundationEssentials
import Glibc
import JetsamPlatform

/// The messages between jetsamd and its spawner service (`jetsam-spawner`), one JSON object per `SOCK_SEQPACKET`
/// message. jetsamd asks for ``SpawnerRequest``s; the service answers each with a ``SpawnerReply`` (`spawned`
/// with the pidfd attached, or `failed`), tells `exited` for every child it reaps, and starts each connection
/// with `hello`.
package struct SpawnerRequest: Codable, Equatable {
  /// jetsamd's number for the request, repeated in its reply.
  package var id: Int
  package var arguments: [String]
  package var executable: String?
  package var environment: [String]
  package var workingDirectory: String?
  package var user: User?
  package var joinProcsFiles: [String]
  package var oomScoreAdj: Int32
  package var ownCgroupNamespace: Bool
  /// The app the child is, named again with its end (``SpawnerReply/Exit/app``).
  package var app: String?
  /// What each attached descriptor is, in order: `cgroup` (the v2 directory to start in), `stdin`, `stdout`,
  /// `stderr`, or the number it gets in the program (`3` for an app's channel).
  package var descriptors: [String]

  package struct User: Codable, Equatable {
    package var uid: UInt32
    package var gid: UInt32
    package var groups: [UInt32]
  }

  /// The request for `spawn` and the descriptors to attach, in the order `descriptors` names them.
  package init(id: Int, _ spawn: SpawnRequest) {
    self.id = id
    arguments = spawn.arguments
    executable = spawn.executable
    environment = spawn.environment
    workingDirectory = spawn.workingDirectory
    user = spawn.user.map { User(uid: $0.uid, gid: $0.gid, groups: $0.supplementaryGroups) }
    joinProcsFiles = spawn.joinProcsFiles
    oomScoreAdj = spawn.oomScoreAdj
    ownCgroupNamespace = spawn.ownCgroupNamespace
    app = spawn.label
    descriptors = Self.attached(spawn).map(\.role)
  }

  /// The request's descriptors with their roles, in the order they travel.
  package static func attached(_ spawn: SpawnRequest) -> [(role: String, fd: FileDescriptor)] {
    var attached: [(role: String, fd: FileDescriptor)] = []
    if let cgroup = spawn.cgroupDirectory { attached.append(("cgroup", cgroup)) }
    if let stdin = spawn.stdin { attached.append(("stdin", stdin)) }
    if let stdout = spawn.stdout { attached.append(("stdout", stdout)) }
    if let stderr = spawn.stderr { attached.append(("stderr", stderr)) }
    for passed in spawn.passedDescriptors { attached.append((String(passed.target), passed.source)) }
    return attached
  }

  /// The spawn request this stands for, with `received` (the attached descriptors, in order) in their places.
  ///
  /// - Throws: ``SpawnError`` with stage ``SpawnError/Stage/invalidRequest`` when the descriptors do not match
  ///   their roles.
  package func spawnRequest(with received: [FileDescriptor]) throws(SpawnError) -> SpawnRequest {
    guard received.count == descriptors.count else {
      throw SpawnError(
        stage: .invalidRequest, errno: EINVAL,
        detail: "\(descriptors.count) descriptors named, \(received.count) attached")
    }
    var spawn = SpawnRequest(
      arguments: arguments, executable: executable, environment: environment, workingDirectory: workingDirectory,
      user: user.map { SpawnUser(uid: $0.uid, gid: $0.gid, supplementaryGroups: $0.groups) }, cgroupDirectory: nil,
      joinProcsFiles: joinProcsFiles, oomScoreAdj: oomScoreAdj)
    spawn.ownCgroupNamespace = ownCgroupNamespace
    spawn.label = app
    for (role, fd) in zip(descriptors, received) {
      switch role {
      case "cgroup": spawn.cgroupDirectory = fd
      case "stdin": spawn.stdin = fd
      case "stdout": spawn.stdout = fd
      case "stderr": spawn.stderr = fd
      default:
        guard let target = Int32(role) else {
          throw SpawnError(stage: .invalidRequest, errno: EINVAL, detail: "unknown descriptor role \(role)")
        }
        spawn.passedDescriptors.append((source: fd, target: target))
      }
    }
    return spawn
  }
}

/// What the spawner service tells jetsamd.
package struct SpawnerReply: Codable, Equatable {
  package enum Kind: String, Codable {
    /// The first message on a connection: the children the service started and has not reaped yet (their
    /// `exited` will come), and the exits a jetsamd has not heard of yet (it was away), in one message so that a
    /// starting jetsamd has them all before it re-adopts its apps.
    case hello
    /// Request `id` started `pid`; its pidfd is attached.
    case spawned
    /// Request `id` failed at `stage` with `errno`.
    case failed
    /// Child `pid` ended with `waitStatus` (waitpid's format), reaped by the service.
    case exited
    /// Child `pid` was continued (SIGCONT) after it had stopped: jetsamd stops it again if it is suspended and
    /// did not continue it itself.
    case continued
  }

  package var kind: Kind
  package var id: Int?
  package var pid: Int32?
  package var children: [Int32]?
  package var stage: String?
  package var errno: Int32?
  package var detail: String?
  package var waitStatus: Int32?
  /// In `hello`: whether the service may give apps cgroup namespaces of their own (it has `CAP_SYS_ADMIN`).
  package var cgroupNamespaces: Bool?
  /// In `hello`: the exits not told yet, oldest first.
  package var exits: [Exit]?

  /// In `exited`: the app the child was, as its request named it.
  package var app: String?

  package struct Exit: Codable, Equatable {
    package var pid: Int32
    package var waitStatus: Int32
    /// The app the child was: a jetsamd that died before its state file held the child can still record its end.
    package var app: String?
  }

  package static func hello(children: [Int32], exits: [Exit]) -> SpawnerReply {
    SpawnerReply(
      kind: .hello, children: children, cgroupNamespaces: SpawnRequest.canCreateCgroupNamespaces, exits: exits)
  }
  package static func spawned(id: Int, pid: Int32) -> SpawnerReply { SpawnerReply(kind: .spawned, id: id, pid: pid) }
  package static func failed(id: Int, _ error: SpawnError) -> SpawnerReply {
    SpawnerReply(kind: .failed, id: id, stage: error.stage.rawValue, errno: error.errno, detail: error.detail)
  }
  package static func continued(pid: Int32) -> SpawnerReply { SpawnerReply(kind: .continued, pid: pid) }
  package static func exited(pid: Int32, waitStatus: Int32, app: String?) -> SpawnerReply {
    SpawnerReply(kind: .exited, pid: pid, waitStatus: waitStatus, app: app)
  }

  /// The spawn error of a `failed` reply.
  package var spawnError: SpawnError {
    SpawnError(
      stage: stage.flatMap(SpawnError.Stage.init(rawValue:)) ?? .spawnerService, errno: errno ?? EPROTO,
      detail: detail ?? "")
  }
}
