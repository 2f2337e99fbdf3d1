internal import CJetsamShim
import Glibc

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
