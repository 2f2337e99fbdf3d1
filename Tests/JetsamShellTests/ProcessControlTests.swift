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

/// Pure parts of process control and spawning: no root, no child processes.
@Suite(.offThePool) struct ProcessControlTests {
  @Test func signalsCarryTheirCNames() {
    #expect(Signal.terminate.rawValue == SIGTERM)
    #expect(Signal.kill.description == "SIGKILL")
    #expect(Signal.stop.description == "SIGSTOP")
    #expect(Signal(rawValue: 40).description == "signal 40")
  }

  /// The core writes the Linux numbers out (it imports no Glibc): each must be Glibc's, and named after it.
  @Test func signalNumbersAreGlibcs() {
    let named: [(Signal, Int32)] = [
      (.hangup, SIGHUP), (.interrupt, SIGINT), (.quit, SIGQUIT), (.illegalInstruction, SIGILL), (.trap, SIGTRAP),
      (.abort, SIGABRT), (.busError, SIGBUS), (.floatingPointException, SIGFPE), (.kill, SIGKILL),
      (.user1, SIGUSR1), (.segmentationFault, SIGSEGV), (.user2, SIGUSR2), (.brokenPipe, SIGPIPE),
      (.alarm, SIGALRM), (.terminate, SIGTERM), (.childStatusChanged, SIGCHLD), (.resume, SIGCONT),
      (.stop, SIGSTOP), (.terminalStop, SIGTSTP), (.cpuLimitExceeded, SIGXCPU),
    ]
    for (signal, number) in named {
      #expect(signal.rawValue == number, "\(signal)")
    }
    let names: [(Int32, String)] = [
      (SIGHUP, "SIGHUP"), (SIGINT, "SIGINT"), (SIGQUIT, "SIGQUIT"), (SIGILL, "SIGILL"), (SIGTRAP, "SIGTRAP"),
      (SIGABRT, "SIGABRT"), (SIGBUS, "SIGBUS"), (SIGFPE, "SIGFPE"), (SIGKILL, "SIGKILL"), (SIGUSR1, "SIGUSR1"),
      (SIGSEGV, "SIGSEGV"), (SIGUSR2, "SIGUSR2"), (SIGPIPE, "SIGPIPE"), (SIGALRM, "SIGALRM"), (SIGTERM, "SIGTERM"),
      (SIGCHLD, "SIGCHLD"), (SIGCONT, "SIGCONT"), (SIGSTOP, "SIGSTOP"), (SIGTSTP, "SIGTSTP"), (SIGTTIN, "SIGTTIN"),
      (SIGTTOU, "SIGTTOU"), (SIGURG, "SIGURG"), (SIGXCPU, "SIGXCPU"), (SIGXFSZ, "SIGXFSZ"),
      (SIGVTALRM, "SIGVTALRM"), (SIGPROF, "SIGPROF"), (SIGWINCH, "SIGWINCH"), (SIGIO, "SIGIO"), (SIGPWR, "SIGPWR"),
      (SIGSYS, "SIGSYS"),
    ]
    for (number, name) in names {
      #expect(Signal(rawValue: number).description == name)
    }
  }

  @Test func pathLookupUsesTheRequestsPath() throws {
    #expect(try resolveExecutable(named: "sh", environment: ["HOME=/", "PATH=/nonexistent::/bin"]) == "/bin/sh")
    // Names with a slash are left to execve, relative ones included.
    #expect(try resolveExecutable(named: "./x", environment: []) == "./x")
    // Without PATH the default is searched.
    #expect(try resolveExecutable(named: "sh", environment: []).hasSuffix("/sh"))
    // Directories and non-executable files are not programs.
    let error = try #require(throws: SpawnError.self) {
      try resolveExecutable(named: "passwd", environment: ["PATH=/etc:/"])
    }
    #expect(error == SpawnError(stage: .resolveExecutable, errno: ENOENT, detail: "passwd"))
  }

  @Test func errorDescriptionsNameTheStepAndItsObject() {
    #expect(
      SpawnError(stage: .joinCgroup, errno: ENOENT, detail: "/sys/fs/cgroup/memory/w/cgroup.procs").description
        == "join cgroup /sys/fs/cgroup/memory/w/cgroup.procs: No such file or directory")
    #expect(
      SpawnError(stage: .setuid, errno: EPERM, detail: "1000").description == "setuid 1000: Operation not permitted")
    #expect(SpawnError(stage: .lookUpUser, errno: 0, detail: "ghost").description == "no user named ghost")
    #expect(SpawnError(stage: .clone, errno: ENOSYS).description.contains("Linux 5.7"))
  }

  @Test func unknownUserIsReported() {
    #expect(throws: SpawnError(stage: .lookUpUser, errno: 0, detail: "jetsam-no-such-user")) {
      try SpawnUser.lookup(name: "jetsam-no-such-user")
    }
  }

  @Test func rootLooksUpAsZero() throws {
    let root = try SpawnUser.lookup(name: "root")
    #expect(root.uid == 0 && root.gid == 0)
    #expect(root.supplementaryGroups.contains(0))
  }
}

/// Stop states through a pidfd, on a real child: no root needed.
@Suite(.serialized, .timeLimit(.minutes(1)), .offThePool)
struct ChildStopStateTests {
  @Test("a child's pidfd says whether it is stopped, without consuming the report; not-our-child says nil")
  func stoppedChild() throws {
    let child = try spawnProcess(
      SpawnRequest(arguments: ["/bin/sleep", "60"], environment: [], cgroupDirectory: nil, oomScoreAdj: 0))
    defer {
      kill(child.pid, SIGKILL)
      var status: Int32 = 0
      waitpid(child.pid, &status, 0)
      child.pidfd.close()
    }
    #expect(isStoppedChild(pidfd: child.pidfd) == false)
    kill(child.pid, SIGSTOP)
    #expect(eventually(timeout: .seconds(5)) { isStoppedChild(pidfd: child.pidfd) == true })
    #expect(isStoppedChild(pidfd: child.pidfd) == true, "asking again still says stopped (WNOWAIT)")
    kill(child.pid, SIGCONT)
    #expect(eventually(timeout: .seconds(5)) { isStoppedChild(pidfd: child.pidfd) == false })
    let init1 = try openPidfd(pid: 1)
    defer { init1.close() }
    #expect(isStoppedChild(pidfd: init1) == nil, "pid 1 is not our child")
  }
}
