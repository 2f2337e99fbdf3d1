import CJetsamShim
import Glibc
import JetsamPlatform

/// What to start, where, and as whom: everything ``spawnProcess(_:)`` needs.
///
/// The program starts inside `cgroupDirectory` (cgroup v2, via `clone3(CLONE_INTO_CGROUP)`) and joins each of
/// `joinProcsFiles` (cgroup v1 `cgroup.procs` files, for the hybrid layout) before it executes a single instruction
/// of its own, so no memory it touches is ever charged elsewhere.
public struct SpawnRequest: Sendable {
  /// The argument vector; `arguments[0]` names the program, as a path (containing `/`) or a name looked up in PATH.
  public var arguments: [String]
  /// The program to run when it differs from `arguments[0]` (which is then only what the program sees as argv[0]).
  public var executable: String?
  /// The complete environment, as `KEY=VALUE` strings; its `PATH` also drives the executable lookup.
  public var environment: [String]
  /// The working directory, or `nil` to inherit the daemon's.
  public var workingDirectory: String?
  /// The user to run as, or `nil` to keep the daemon's credentials.
  public var user: SpawnUser?
  /// A cgroup v2 directory opened with `O_DIRECTORY` (on the hybrid layout a child of the unified mount), or `nil`
  /// to start in the daemon's own cgroup. The descriptor stays owned by the caller.
  public var cgroupDirectory: FileDescriptor?
  /// cgroup v1 `cgroup.procs` files the child writes `0` into before exec; if one fails, the program never runs.
  public var joinProcsFiles: [String]
  /// The child's `oom_score_adj` (-1000...1000); always written, so the daemon's own value is never inherited.
  /// Going below the daemon's own value needs `CAP_SYS_RESOURCE`; without it the spawn fails with stage
  /// ``SpawnError/Stage/oomScoreAdj`` and `EACCES` (the build machines' root lacks that capability).
  public var oomScoreAdj: Int32
  /// The program's standard input; `nil` means `/dev/null`. The descriptor stays owned by the caller.
  public var stdin: FileDescriptor?
  /// The program's standard output; `nil` means `/dev/null`. The descriptor stays owned by the caller.
  public var stdout: FileDescriptor?
  /// The program's standard error; `nil` means `/dev/null`. The descriptor stays owned by the caller.
  public var stderr: FileDescriptor?
  /// Extra descriptors the program receives: `source` (owned by the caller) appears as `target` (>= 3, distinct).
  /// Every other descriptor is closed at exec.
  public var passedDescriptors: [(source: FileDescriptor, target: Int32)]
  /// Whether the program gets a cgroup namespace of its own, rooted at the cgroups it starts in (needs
  /// `CAP_SYS_ADMIN`, see ``canCreateCgroupNamespaces``): it sees them as `/`, and where cgroup2 is mounted with
  /// `nsdelegate` (systemd's default) not even root can move it to a cgroup outside them.
  public var ownCgroupNamespace = false

  /// Whether this process may give its children cgroup namespaces (`CAP_SYS_ADMIN` in its effective set); a
  /// systemd unit that leaves the capability out cannot.
  public static var canCreateCgroupNamespaces: Bool { hasCapability(capabilitySystemAdministration) }

  public init(
    arguments: [String],
    executable: String? = nil,
    environment: [String] = [],
    workingDirectory: String? = nil,
    user: SpawnUser? = nil,
    cgroupDirectory: FileDescriptor?,
    joinProcsFiles: [String] = [],
    oomScoreAdj: Int32 = 0,
    stdin: FileDescriptor? = nil,
    stdout: FileDescriptor? = nil,
    stderr: FileDescriptor? = nil,
    passedDescriptors: [(source: FileDescriptor, target: Int32)] = []
  ) {
    self.arguments = arguments
    self.executable = executable
    self.environment = environment
    self.workingDirectory = workingDirectory
    self.user = user
    self.cgroupDirectory = cgroupDirectory
    self.joinProcsFiles = joinProcsFiles
    self.oomScoreAdj = oomScoreAdj
    self.stdin = stdin
    self.stdout = stdout
    self.stderr = stderr
    self.passedDescriptors = passedDescriptors
  }
}

/// Credentials for a spawned program: exactly these ids and supplementary groups, nothing inherited.
public struct SpawnUser: Hashable, Sendable {
  public var uid: UInt32
  public var gid: UInt32
  public var supplementaryGroups: [UInt32]
  /// The login name and home directory, for the clean environment an app of another user starts with.
  public var name = ""
  public var home = "/"

  public init(uid: UInt32, gid: UInt32, supplementaryGroups: [UInt32] = []) {
    self.uid = uid
    self.gid = gid
    self.supplementaryGroups = supplementaryGroups
  }

  /// The environment a program of this user starts with instead of jetsamd's (which it must not see):
  /// `PATH`, `HOME`, `USER` and `LOGNAME`.
  public var cleanEnvironment: [String: String] {
    ["PATH": defaultExecutableSearchPath, "HOME": home, "USER": name, "LOGNAME": name]
  }

  /// The login name of `uid` (`getpwuid_r`), nil when the password database has none.
  public static func name(of uid: uid_t) -> String? {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>? = nil
    var buffer = [CChar](repeating: 0, count: 16 * 1024)
    guard getpwuid_r(uid, &entry, &buffer, buffer.count, &found) == 0, found != nil, let name = entry.pw_name else {
      return nil
    }
    return String(cString: name)
  }

  /// Looks a user up in the password database (`getpwnam_r`), with its groups from `getgrouplist`.
  ///
  /// - Parameter name: the login name.
  /// - Returns: the user's uid, primary gid, and every group it belongs to.
  /// - Throws: ``SpawnError`` with stage ``SpawnError/Stage/lookUpUser`` (errno 0 when there is no such user).
  public static func lookup(name: String) throws(SpawnError) -> SpawnUser {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>? = nil
    var bufferSize = max(Int(sysconf(Int32(_SC_GETPW_R_SIZE_MAX))), 1024)
    while true {
      let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bufferSize)
      defer { buffer.deallocate() }
      let code = getpwnam_r(name, &entry, buffer, bufferSize, &found)
      if code == ERANGE && bufferSize < 1 << 20 {
        bufferSize *= 4
        continue
      }
      if code != 0 { throw SpawnError(stage: .lookUpUser, errno: code, detail: name) }
      guard found != nil else { throw SpawnError(stage: .lookUpUser, errno: 0, detail: name) }
      // The strings in `entry` point into `buffer`: copied before it goes.
      var user = SpawnUser(uid: entry.pw_uid, gid: entry.pw_gid, supplementaryGroups: groupList(name, entry.pw_gid))
      user.name = name
      user.home = entry.pw_dir.map { String(cString: $0) } ?? "/"
      return user
    }
  }

  private static func groupList(_ name: String, _ gid: gid_t) -> [UInt32] {
    var count: Int32 = 32
    while true {
      var groups = [gid_t](repeating: 0, count: Int(count))
      var capacity = count
      if getgrouplist(name, gid, &groups, &capacity) >= 0 {
        return Array(groups.prefix(Int(capacity)))
      }
      // -1: the list did not fit; `capacity` now holds the size it needs.
      count = max(capacity, count * 2)
    }
  }
}

/// A running program: its pid and a pidfd (`O_CLOEXEC`) that the caller owns and must close after reaping.
public struct SpawnedProcess: Hashable, Sendable {
  public let pid: Int32
  public let pidfd: FileDescriptor

  public init(pid: Int32, pidfd: FileDescriptor) {
    self.pid = pid
    self.pidfd = pidfd
  }
}

/// Why a program could not be started: the step that failed, the errno it failed with, and what it was about.
///
/// When the stage is one of the child's (``Stage/joinCgroup`` onwards) the program's code never ran.
public struct SpawnError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The step that failed, in the order the spawner performs them.
  public enum Stage: String, Sendable, Hashable, CaseIterable {
    /// The request itself is unusable (empty arguments, a NUL inside a string, a bad descriptor target).
    case invalidRequest
    /// No executable with that name in the PATH directories.
    case resolveExecutable
    /// The user name is unknown, or the password database failed.
    case lookUpUser
    /// Creating the error pipe in the daemon.
    case errorPipe
    /// `clone3` itself (the cgroup fd, or a kernel without clone3 / CLONE_INTO_CGROUP).
    case clone
    /// In the child: resetting signal dispositions and the mask.
    case signals
    /// In the child: writing `0` into a cgroup v1 `cgroup.procs`.
    case joinCgroup
    /// In the child: `unshare(CLONE_NEWCGROUP)`.
    case cgroupNamespace
    /// In the child: writing `/proc/self/oom_score_adj`.
    case oomScoreAdj
    /// In the child: `setsid`.
    case setsid
    /// In the child: `chdir`.
    case chdir
    /// In the child: `setgroups`, `setresgid`, `setresuid`.
    case setgroups
    case setgid
    case setuid
    /// In the child: opening `/dev/null` for a standard stream.
    case openDevNull
    /// In the child: duplicating a descriptor onto its target number.
    case redirectDescriptor
    /// In the child: marking the other descriptors close-on-exec.
    case closeDescriptors
    /// In the child: `execve`.
    case execve
    /// Reaching jetsamd's spawner service (`jetsam-spawner`), which starts apps outside jetsamd's sandbox.
    case spawnerService
  }

  /// The step that failed.
  public var stage: Stage
  /// The C `errno` of the failure (0 where there is none, e.g. an unknown user).
  public var errno: Int32
  /// What the step was about: the path, directory, id or descriptor named in ``description``.
  public var detail: String

  public init(stage: Stage, errno: Int32, detail: String = "") {
    self.stage = stage
    self.errno = errno
    self.detail = detail
  }

  /// The operation, e.g. `join cgroup /sys/fs/cgroup/memory/w1/cgroup.procs` or `chdir /srv/app`.
  public var operation: String {
    switch stage {
    case .invalidRequest: "invalid spawn request: \(detail)"
    case .resolveExecutable: "no executable named \(detail) in PATH"
    case .lookUpUser: "look up user \(detail)"
    case .errorPipe: "pipe2 for the spawn error pipe"
    case .clone: "clone3 into cgroup\(detail.isEmpty ? "" : " \(detail)")"
    case .signals: "reset signal dispositions and mask"
    case .joinCgroup: "join cgroup \(detail)"
    case .cgroupNamespace: "unshare a cgroup namespace"
    case .oomScoreAdj: "write oom_score_adj \(detail)"
    case .setsid: "setsid"
    case .chdir: "chdir \(detail)"
    case .setgroups: "setgroups \(detail)"
    case .setgid: "setgid \(detail)"
    case .setuid: "setuid \(detail)"
    case .openDevNull: "open /dev/null for \(detail)"
    case .redirectDescriptor: "dup2 \(detail)"
    case .closeDescriptors: "close_range (mark descriptors close-on-exec)"
    case .execve: "execve \(detail)"
    case .spawnerService: "ask the spawner service\(detail.isEmpty ? "" : " at \(detail)")"
    }
  }

  public var description: String {
    switch stage {
    case .invalidRequest, .resolveExecutable:
      return operation
    case .lookUpUser where errno == 0:
      return "no user named \(detail)"
    default:
      var text = "\(operation): \(String(cString: strerror(errno)))"
      if stage == .clone {
        switch errno {
        case EBADF: text += " (is the cgroup directory fd a cgroup v2 directory?)"
        case ENOSYS, E2BIG: text += " (the kernel lacks clone3 with CLONE_INTO_CGROUP, Linux 5.7+)"
        default: break
        }
      }
      return text
    }
  }
}

/// The PATH used when the request's environment has none (the usual root PATH of Debian and systemd).
public let defaultExecutableSearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/// Finds the file `execve` should run for `name`, as a shell would.
///
/// A name containing `/` is returned unchanged (relative to the child's working directory; `execve` reports any
/// problem). Otherwise each directory of the environment's `PATH` (or ``defaultExecutableSearchPath``) is tried in
/// order for a regular file this process may execute. Empty PATH entries are skipped: they would mean "the
/// daemon's working directory", which is never what a worker means.
///
/// - Parameters:
///   - name: `arguments[0]` or the explicit executable.
///   - environment: the child's environment (`KEY=VALUE`); the first `PATH=` entry wins.
/// - Returns: the path to pass to `execve`.
/// - Throws: ``SpawnError`` with stage ``SpawnError/Stage/resolveExecutable`` and `ENOENT`.
public func resolveExecutable(named name: String, environment: [String]) throws(SpawnError) -> String {
  if name.contains("/") { return name }
  guard !name.isEmpty else { throw SpawnError(stage: .invalidRequest, errno: EINVAL, detail: "empty program name") }
  let searchPath = environment.first { $0.hasPrefix("PATH=") }.map { String($0.dropFirst(5)) }
  for directory in (searchPath ?? defaultExecutableSearchPath).split(separator: ":") {
    let candidate = directory.hasSuffix("/") ? "\(directory)\(name)" : "\(directory)/\(name)"
    var info = stat()
    if stat(candidate, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(candidate, X_OK) == 0 {
      return candidate
    }
  }
  throw SpawnError(stage: .resolveExecutable, errno: ENOENT, detail: name)
}

/// Starts a program as `request` describes and returns once it has executed (or failed to).
///
/// The child is created with `clone3(CLONE_PIDFD | CLONE_INTO_CGROUP)`, joins the v1 cgroups, sets
/// `oom_score_adj`, starts a new session, changes directory, drops to the user, arranges descriptors and
/// `execve`s; any failure on the way comes back through a close-on-exec pipe as a precise ``SpawnError`` and the
/// half-started child is reaped. It never sets `PR_SET_PDEATHSIG`: workers survive a daemon restart.
///
/// - Parameter request: what to start.
/// - Returns: the pid and a pidfd the caller owns.
/// - Throws: ``SpawnError``; the program's own code never ran.
public func spawnProcess(_ request: SpawnRequest) throws(SpawnError) -> SpawnedProcess {
  guard let program = request.executable ?? request.arguments.first else {
    throw SpawnError(stage: .invalidRequest, errno: EINVAL, detail: "no arguments")
  }
  try validate(request)
  let path = try resolveExecutable(named: program, environment: request.environment)

  // Every pointer the child reads, prepared here: after clone3 the child may not allocate.
  let strings = CStringArray([path, request.workingDirectory ?? ""])
  let argv = CStringArray(request.arguments)
  let envp = CStringArray(request.environment)
  let joins = CStringArray(request.joinProcsFiles)
  let groups: [gid_t] = request.user?.supplementaryGroups ?? []
  let passed = request.passedDescriptors.map { jetsam_spawn_fd(source: $0.source.rawValue, target: $0.target) }

  var result = jetsam_spawn_result()
  let status = withExtendedLifetime((strings, argv, envp, joins)) {
    groups.withUnsafeBufferPointer { groupBuffer in
      passed.withUnsafeBufferPointer { passedBuffer in
        var spawn = jetsam_spawn_request()
        spawn.path = UnsafePointer(strings.base[0])
        spawn.argv = UnsafePointer(argv.base)
        spawn.envp = UnsafePointer(envp.base)
        spawn.working_directory = request.workingDirectory == nil ? nil : UnsafePointer(strings.base[1])
        spawn.cgroup_fd = request.cgroupDirectory?.rawValue ?? -1
        spawn.join_procs_paths = UnsafeRawPointer(joins.base).assumingMemoryBound(to: UnsafePointer<CChar>?.self)
        spawn.join_procs_count = request.joinProcsFiles.count
        spawn.set_oom_score_adj = 1
        spawn.new_cgroup_namespace = request.ownCgroupNamespace ? 1 : 0
        spawn.oom_score_adj = request.oomScoreAdj
        spawn.nofile_soft_limit = 1024
        if let user = request.user {
          spawn.set_user = 1
          spawn.uid = user.uid
          spawn.gid = user.gid
          spawn.groups = groupBuffer.baseAddress
          spawn.group_count = groupBuffer.count
        }
        spawn.stdin_fd = request.stdin?.rawValue ?? -1
        spawn.stdout_fd = request.stdout?.rawValue ?? -1
        spawn.stderr_fd = request.stderr?.rawValue ?? -1
        spawn.passed = passedBuffer.baseAddress
        spawn.passed_count = passedBuffer.count
        return jetsam_spawn(&spawn, &result)
      }
    }
  }
  if status == 0 {
    return SpawnedProcess(pid: result.pid, pidfd: FileDescriptor(rawValue: result.pidfd))
  }
  throw spawnError(result, request: request, path: path)
}

/// Rejects what the C side could not report precisely (or would silently truncate, like a NUL in a string).
private func validate(_ request: SpawnRequest) throws(SpawnError) {
  let strings =
    request.arguments + request.environment + request.joinProcsFiles
    + [request.executable, request.workingDirectory].compactMap { $0 }
  if let bad = strings.first(where: { $0.utf8.contains(0) }) {
    throw SpawnError(stage: .invalidRequest, errno: EINVAL, detail: "NUL byte in \(bad.debugDescription)")
  }
  if let bad = request.environment.first(where: { !$0.contains("=") }) {
    throw SpawnError(stage: .invalidRequest, errno: EINVAL, detail: "environment entry without '=': \(bad)")
  }
  if request.passedDescriptors.count > Int(JETSAM_SPAWN_MAX_PASSED) {
    throw SpawnError(stage: .invalidRequest, errno: EINVAL, detail: "more than \(JETSAM_SPAWN_MAX_PASSED) descriptors")
  }
  var targets = Set<Int32>()
  for (source, target) in request.passedDescriptors {
    guard target >= 3, source.rawValue >= 0, targets.insert(target).inserted else {
      throw SpawnError(
        stage: .invalidRequest, errno: EINVAL,
        detail: "passed descriptor \(source.rawValue) -> \(target) (targets must be >= 3 and distinct)")
    }
  }
}

/// Turns the C result's stage and index into a ``SpawnError`` that names the path, id or descriptor.
private func spawnError(_ result: jetsam_spawn_result, request: SpawnRequest, path: String) -> SpawnError {
  let index = Int(result.index)
  let streams = ["stdin", "stdout", "stderr"]
  func descriptorDetail() -> String {
    if index < 3 { return "\(streams[index])" }
    let passed = request.passedDescriptors[index - 3]
    return "fd \(passed.source.rawValue) to \(passed.target)"
  }
  let stage: SpawnError.Stage
  var detail = ""
  switch jetsam_spawn_stage(rawValue: UInt32(bitPattern: result.stage)) {
  case JETSAM_SPAWN_STAGE_REQUEST:
    stage = .invalidRequest
    detail = "rejected by jetsam_spawn (index \(index))"
  case JETSAM_SPAWN_STAGE_PIPE: stage = .errorPipe
  case JETSAM_SPAWN_STAGE_CLONE:
    stage = .clone
    detail = request.cgroupDirectory.map { "fd \($0.rawValue)" } ?? ""
  case JETSAM_SPAWN_STAGE_SIGNALS: stage = .signals
  case JETSAM_SPAWN_STAGE_JOIN_CGROUP:
    stage = .joinCgroup
    detail = request.joinProcsFiles.indices.contains(index) ? request.joinProcsFiles[index] : "#\(index)"
  case JETSAM_SPAWN_STAGE_CGROUP_NAMESPACE: stage = .cgroupNamespace
  case JETSAM_SPAWN_STAGE_OOM_SCORE_ADJ:
    stage = .oomScoreAdj
    detail = "\(request.oomScoreAdj)"
  case JETSAM_SPAWN_STAGE_SETSID: stage = .setsid
  case JETSAM_SPAWN_STAGE_CHDIR:
    stage = .chdir
    detail = request.workingDirectory ?? ""
  case JETSAM_SPAWN_STAGE_SETGROUPS:
    stage = .setgroups
    detail = (request.user?.supplementaryGroups ?? []).map(String.init).joined(separator: ",")
  case JETSAM_SPAWN_STAGE_SETGID:
    stage = .setgid
    detail = request.user.map { "\($0.gid)" } ?? ""
  case JETSAM_SPAWN_STAGE_SETUID:
    stage = .setuid
    detail = request.user.map { "\($0.uid)" } ?? ""
  case JETSAM_SPAWN_STAGE_OPEN_DEV_NULL:
    stage = .openDevNull
    detail = streams[min(max(index, 0), 2)]
  case JETSAM_SPAWN_STAGE_DUP:
    stage = .redirectDescriptor
    detail = descriptorDetail()
  case JETSAM_SPAWN_STAGE_CLOSE_FDS: stage = .closeDescriptors
  default:
    stage = .execve
    detail = path
  }
  return SpawnError(stage: stage, errno: result.error, detail: detail)
}

/// NUL-terminated copies of Swift strings in one C array that ends with NULL, at an address that stays put
/// until deinit (unlike a Swift array's storage outside `withUnsafeBufferPointer`).
private final class CStringArray {
  let base: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  private let count: Int

  init(_ strings: [String]) {
    count = strings.count
    base = .allocate(capacity: strings.count + 1)
    for (index, string) in strings.enumerated() {
      // strdup only fails when malloc does, and then nothing else would work either.
      base[index] = strdup(string)!
    }
    base[strings.count] = nil
  }

  deinit {
    for index in 0..<count { free(base[index]) }
    base.deallocate()
  }
}
