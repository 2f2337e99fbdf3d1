import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamTestKit
import JetsamTestTraits
import JetsamValues
import Testing

@testable import JetsamShell
@testable import JetsamSpawning

/// Real spawns of `jetsam-testapp` into cgroups made for each test. Every process is killed and every cgroup
/// removed in `defer`, also when an expectation fails.
@Suite(.serialized, .timeLimit(.minutes(1)), .offThePool)
struct SpawnerTests {
  // MARK: Placement

  @Test(.enabled(if: isRoot, "needs root to create cgroups"))
  func startsInsideEveryCgroupWithPathLookup() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    // A bare name, found through the request's own PATH (not the test process's).
    let request = SpawnRequest(
      arguments: ["jetsam-testapp", "idle"], environment: ["PATH=/nonexistent:\(Binaries.current.directory)"],
      cgroupDirectory: cgroup.directory, joinProcsFiles: cgroup.joinProcsFiles)
    let child = try spawnProcess(request)
    defer { child.killAndReap() }

    // The joins happen before exec, so the membership is complete the moment spawnProcess returns.
    let membership = CgroupHost.membership(of: child.pid)
    #expect(membership[""] == "/" + cgroup.name)
    for controller in cgroup.v1Paths.keys.sorted() {
      #expect(membership[controller] == "/" + cgroup.name, "\(controller) in \(membership)")
    }
    #expect(cgroup.members() == [child.pid])
    // (The bin directory may be a symlink, as .build/debug is.)
    #expect(readLink("/proc/\(child.pid)/exe") == realpath(Binaries.current.testapp, nil).map { String(cString: $0) })
  }

  @Test(.enabled(if: isRoot, "needs root to create cgroups"))
  func forkedChildStaysInTheSameCgroups() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    let temporary = try makeTemporaryDirectory()
    defer { removeTemporaryDirectory(temporary) }
    let pidFile = temporary + "/child.pid"

    let parent = try spawnProcess(cgroup.testappRequest(["fork-child", "--pid-file", pidFile]))
    defer { parent.killAndReap() }
    var grandchild: Int32 = 0
    defer { if grandchild > 0 { kill(grandchild, SIGKILL) } }
    #expect(eventually { (try? readTextFile(pidFile)).flatMap { Int32($0) }.map { grandchild = $0 } != nil })
    try #require(grandchild > 0)

    #expect(CgroupHost.membership(of: grandchild) == CgroupHost.membership(of: parent.pid))
    #expect(cgroup.members() == [parent.pid, grandchild])
  }

  // MARK: Process attributes

  @Test(.enabled(if: isRoot, "needs root to create cgroups"))
  func oomScoreAdjIsSetBeforeExecAndCanBeChanged() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    var request = cgroup.testappRequest(["idle"])
    request.oomScoreAdj = 789
    let child = try spawnProcess(request)
    defer { child.killAndReap() }

    #expect(try oomScoreAdj(pid: child.pid) == 789)
    try setOOMScoreAdj(pid: child.pid, 900)
    #expect(try oomScoreAdj(pid: child.pid) == 900)
    // Lowering it is fine down to the minimum inherited from the test process (its own value, unless it has
    // CAP_SYS_RESOURCE; the build machines' root lacks that capability).
    let floor = try oomScoreAdj(pid: getpid())
    try setOOMScoreAdj(pid: child.pid, floor)
    #expect(try oomScoreAdj(pid: child.pid) == floor)
  }

  @Test(.enabled(if: isRoot && !hasCapability(capSysResource), "needs root without CAP_SYS_RESOURCE"))
  func oomScoreAdjBelowTheInheritedMinimumIsAPreciseSpawnError() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    var request = cgroup.testappRequest(["idle"])
    request.oomScoreAdj = try oomScoreAdj(pid: getpid()) - 1
    let error = try #require(throws: SpawnError.self) { try spawnProcess(request) }
    #expect(error.stage == .oomScoreAdj)
    #expect(error.errno == EACCES)
    #expect(error.description == "write oom_score_adj \(request.oomScoreAdj): Permission denied")
  }

  @Test(.enabled(if: isRoot, "needs root to create cgroups"))
  func childHasCleanSignalsAndItsOwnSession() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    // Give the spawning thread an ignored and a blocked signal: neither may reach the program.
    var ignore = sigaction()
    ignore.__sigaction_handler.sa_handler = SIG_IGN
    var previous = sigaction()
    sigaction(SIGPIPE, &ignore, &previous)
    defer { sigaction(SIGPIPE, &previous, nil) }
    var blocked = sigset_t()
    var previousMask = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGUSR2)
    pthread_sigmask(SIG_BLOCK, &blocked, &previousMask)
    defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }

    let child = try spawnProcess(cgroup.testappRequest(["idle"]))
    defer { child.killAndReap() }

    let status = try ProcessStatus.read(pid: child.pid)
    #expect(status["SigIgn"] == "0000000000000000")
    #expect(status["SigBlk"] == "0000000000000000")
    let stat = try ProcessStat.read(pid: child.pid)
    #expect(stat.processGroupID == child.pid, "process group")
    #expect(stat.sessionID == child.pid, "session")
  }

  @Test(.enabled(if: isRoot, "needs root to create cgroups"))
  func descriptorsAreRedirectedPassedAndNothingElseLeaks() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    let (readEnd, writeEnd) = try makePipe()
    defer {
      readEnd.close()
      writeEnd.close()
    }

    // stdout goes to the pipe, stdin/stderr to /dev/null; the write end is also passed as fd 7.
    var request = cgroup.testappRequest(["idle"])
    request.stdout = writeEnd
    request.passedDescriptors = [(source: writeEnd, target: 7)]
    let child = try spawnProcess(request)
    defer { child.killAndReap() }

    // Right after exec the dynamic loader briefly holds the libraries it maps open (as fd 3): a leaked
    // descriptor stays, the loader's goes.
    var descriptors = openDescriptors(pid: child.pid)
    for _ in 0..<100 where descriptors != [0, 1, 2, 7] {
      usleep(10_000)
      descriptors = openDescriptors(pid: child.pid)
    }
    #expect(descriptors == [0, 1, 2, 7])
    #expect(readLink("/proc/\(child.pid)/fd/0") == "/dev/null")
    #expect(readLink("/proc/\(child.pid)/fd/2") == "/dev/null")
    let pipeName = readLink("/proc/self/fd/\(writeEnd.rawValue)")
    #expect(pipeName?.hasPrefix("pipe:") == true)
    #expect(readLink("/proc/\(child.pid)/fd/1") == pipeName)
    #expect(readLink("/proc/\(child.pid)/fd/7") == pipeName)
    // Passed descriptors lose close-on-exec (flags line of fdinfo: 02000000 is O_CLOEXEC).
    let flags = try readTextFile("/proc/\(child.pid)/fdinfo/7").split(separator: "\n").first { $0.hasPrefix("flags:") }
    let octal = flags.flatMap { Int($0.split(separator: "\t").last ?? "", radix: 8) } ?? -1
    #expect(octal >= 0 && octal & Int(O_CLOEXEC) == 0)
  }

  @Test(.enabled(if: isRoot, "needs root to create cgroups and change users"))
  func runsAsAnotherUser() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    let nobody = try SpawnUser.lookup(name: "nobody")
    #expect(nobody.uid == 65534)
    var request = SpawnRequest(
      arguments: ["sleep", "30"], environment: ["PATH=/usr/bin:/bin"], user: nobody,
      cgroupDirectory: cgroup.directory, joinProcsFiles: cgroup.joinProcsFiles)
    request.workingDirectory = "/"
    let child = try spawnProcess(request)
    defer { child.killAndReap() }

    let status = try ProcessStatus.read(pid: child.pid)
    #expect(status["Uid"] == "65534\t65534\t65534\t65534")
    #expect(status["Gid"] == Array(repeating: "\(nobody.gid)", count: 4).joined(separator: "\t"))
    let groups = status["Groups"]?.split(separator: " ").compactMap { UInt32($0) }
    #expect(groups.map(Set.init) == Set(nobody.supplementaryGroups))
    // Joined as root before dropping privileges.
    #expect(cgroup.members() == [child.pid])
  }

  // MARK: Reaping

  static let ends: [(arguments: [String], end: ProcessEnd)] = [
    (["exit", "3"], .exited(code: 3)),
    (["exit", "0"], .exited(code: 0)),
    (["crash", "segv"], .signaled(signal: SIGSEGV, dumpedCore: false)),
    (["crash", "bus"], .signaled(signal: SIGBUS, dumpedCore: false)),
    (["crash", "ill"], .signaled(signal: SIGILL, dumpedCore: false)),
    (["crash", "abort"], .signaled(signal: SIGABRT, dumpedCore: false)),
    (["crash", "trap"], .signaled(signal: SIGTRAP, dumpedCore: false)),
  ]

  @Test(.enabled(if: isRoot, "needs root to create cgroups"), arguments: ends)
  func reapsHowItEnded(arguments: [String], end expected: ProcessEnd) throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    let child = try spawnProcess(cgroup.testappRequest(arguments))
    defer { child.killAndReap() }

    let end = try #require(try child.waitForEnd())
    switch (end, expected) {
    case (.signaled(let signal, _), .signaled(let expectedSignal, _)):
      // Whether a core was written depends on the host's core_pattern and RLIMIT_CORE: compare the signal only.
      #expect(signal == expectedSignal)
    default:
      #expect(end == expected)
    }
  }

  @Test(.enabled(if: isRoot, "needs root to create cgroups"))
  func reapsACoreDump() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    let temporary = try makeTemporaryDirectory()
    defer { removeTemporaryDirectory(temporary) }
    // --core raises RLIMIT_CORE; with a core_pattern of "core" the dump lands in the working directory.
    var request = cgroup.testappRequest(["crash", "abort", "--core"])
    request.workingDirectory = temporary
    let child = try spawnProcess(request)
    defer { child.killAndReap() }

    let pattern = (try? readTextFile("/proc/sys/kernel/core_pattern")) ?? ""
    let end = try #require(try child.waitForEnd())
    if pattern.hasPrefix("\n") || pattern.isEmpty {
      #expect(end == .signaled(signal: SIGABRT, dumpedCore: false))
    } else {
      #expect(end == .signaled(signal: SIGABRT, dumpedCore: true))
    }
  }

  @Test(.enabled(if: isRoot, "needs root to create cgroups"))
  func killsThroughThePidfdAndReleasesMemory() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    let child = try spawnProcess(cgroup.testappRequest(["alloc", "64", "--hold"]))
    defer { child.killAndReap() }

    #expect(try reapExit(pidfd: child.pidfd) == nil, "still running")
    // A live process is not dying: nothing to release.
    #expect(try releaseMemory(pidfd: child.pidfd) == false)
    try sendSignal(pidfd: child.pidfd, .kill)
    // Right after SIGKILL the memory can be reaped on our time (or the exit already did it: false).
    _ = try releaseMemory(pidfd: child.pidfd)
    #expect(try child.waitForEnd() == .signaled(signal: SIGKILL, dumpedCore: false))
    #expect(throws: SystemError.self) { try sendSignal(pidfd: child.pidfd, .terminate) }
  }

  @Test(.enabled(if: isRoot, "needs root to create cgroups"))
  func stopAndResumeShowInTheProcessState() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    let child = try spawnProcess(cgroup.testappRequest(["idle"]))
    defer { child.killAndReap() }

    #expect(eventually { processState(pid: child.pid) == "S" })
    try sendSignal(pidfd: child.pidfd, .stop)
    #expect(eventually { processState(pid: child.pid) == "T" })
    try sendSignal(pidfd: child.pidfd, .resume)
    #expect(eventually { processState(pid: child.pid) == "S" })
    // A stopped process still dies of SIGKILL at once.
    try sendSignal(pidfd: child.pidfd, .stop)
    try sendSignal(pidfd: child.pidfd, .kill)
    #expect(try child.waitForEnd() == .signaled(signal: SIGKILL, dumpedCore: false))
    #expect(processState(pid: child.pid) == nil)
  }

  // MARK: Precise errors

  @Test func missingExecutableIsNamed() throws {
    let request = SpawnRequest(
      arguments: ["jetsam-no-such-program", "x"], environment: ["PATH=/nonexistent:/usr/bin"], cgroupDirectory: nil)
    let error = try #require(throws: SpawnError.self) { try spawnProcess(request) }
    #expect(error.stage == .resolveExecutable)
    #expect(error.errno == ENOENT)
    #expect(error.description == "no executable named jetsam-no-such-program in PATH")
  }

  @Test(.enabled(if: isRoot, "needs root to create cgroups"))
  func badWorkingDirectoryIsNamedAndTheChildIsReaped() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    var request = cgroup.testappRequest(["idle"])
    request.workingDirectory = "/nonexistent-jetsam-dir"
    let error = try #require(throws: SpawnError.self) { try spawnProcess(request) }
    #expect(error.stage == .chdir)
    #expect(error.errno == ENOENT)
    #expect(error.description == "chdir /nonexistent-jetsam-dir: No such file or directory")
    // The half-started child was reaped inside spawnProcess, not left running or as a zombie member.
    #expect(cgroup.members().isEmpty)
  }

  @Test(.enabled(if: isRoot, "needs root to create cgroups"))
  func failedCgroupJoinNeverRunsTheProgram() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    let temporary = try makeTemporaryDirectory()
    defer { removeTemporaryDirectory(temporary) }
    let marker = temporary + "/ran"
    let missing = "/sys/fs/cgroup/memory/\(cgroup.name)-missing/cgroup.procs"

    // `alloc 0 --mark-at 0` writes the marker as the program's very first action.
    var request = cgroup.testappRequest(["alloc", "0", "--mark-file", marker, "--mark-at", "0"])
    request.joinProcsFiles.append(missing)
    let error = try #require(throws: SpawnError.self) { try spawnProcess(request) }
    #expect(error.stage == .joinCgroup)
    #expect(error.detail == missing)
    #expect(error.errno == ENOENT)
    #expect(error.description == "join cgroup \(missing): No such file or directory")
    #expect(access(marker, F_OK) != 0, "the program ran")

    // The same request without the bad path does run it (so the marker check above means something).
    request.joinProcsFiles.removeLast()
    let child = try spawnProcess(request)
    defer { child.killAndReap() }
    #expect(try child.waitForEnd() == .exited(code: 0))
    #expect(access(marker, F_OK) == 0)
  }

  @Test(.enabled(if: isRoot, "needs root to create cgroups"))
  func execveFailureIsNamed() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    let temporary = try makeTemporaryDirectory()
    defer { removeTemporaryDirectory(temporary) }
    let notExecutable = temporary + "/plain-file"
    try FileDescriptor.open(notExecutable, O_WRONLY | O_CREAT, mode: 0o644).close()

    var request = cgroup.testappRequest([])
    request.arguments = [notExecutable]
    let error = try #require(throws: SpawnError.self) { try spawnProcess(request) }
    #expect(error.stage == .execve)
    #expect(error.errno == EACCES)
    #expect(error.description == "execve \(notExecutable): Permission denied")
    #expect(cgroup.members().isEmpty)
  }

  @Test(.enabled(if: !CgroupHost.isPureV2 && isRoot, "needs the hybrid layout's v1 mounts, and root"))
  func v1DirectoryCannotBeTheCloneTarget() throws {
    let cgroup = try TestCgroup()
    defer { cgroup.destroy() }
    let v1 = try FileDescriptor.open(cgroup.v1Paths["memory"]!, O_RDONLY | O_DIRECTORY)
    defer { v1.close() }
    var request = cgroup.testappRequest(["idle"])
    request.cgroupDirectory = v1
    let error = try #require(throws: SpawnError.self) { try spawnProcess(request) }
    #expect(error.stage == .clone)
    #expect(error.errno == EBADF)
    #expect(error.description.contains("cgroup v2"))
  }

  @Test func invalidRequestsAreRejectedBeforeSpawning() throws {
    let base = SpawnRequest(arguments: ["/bin/true"], cgroupDirectory: nil)
    var onStdout = base
    onStdout.passedDescriptors = [(source: FileDescriptor(rawValue: 0), target: 1)]
    var duplicate = base
    duplicate.passedDescriptors = [
      (source: FileDescriptor(rawValue: 0), target: 5), (source: FileDescriptor(rawValue: 1), target: 5),
    ]
    var withNul = base
    withNul.arguments.append("a\u{0}b")
    var badEnvironment = base
    badEnvironment.environment = ["NOEQUALS"]
    let empty = SpawnRequest(arguments: [], cgroupDirectory: nil)
    for request in [onStdout, duplicate, withNul, badEnvironment, empty] {
      let error = try #require(throws: SpawnError.self) { try spawnProcess(request) }
      #expect(error.stage == .invalidRequest)
    }
  }
}
