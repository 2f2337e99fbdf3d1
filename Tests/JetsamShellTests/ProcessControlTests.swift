import Glibc
import JetsamCore
import Testing

@testable import JetsamShell

/// Pure parts of process control and spawning: no root, no child processes.
@Suite struct ProcessControlTests {
  @Test(arguments: [
    ("1234 (idle) S 1 1234 1234 0 -1", "S"),
    ("77 (a b) T 1 77 77", "T"),
    // comm may itself contain ") X (": only the last ')' ends it.
    ("42 (evil) R (x)) Z 1 42 42", "Z"),
    ("9 ()) D 1", "D"),
  ])
  func stateIsTheFieldAfterTheLastParenthesis(line: String, state: String) {
    #expect(parseProcessState(stat: line) == state.first)
  }

  @Test func stateOfMissingOrMalformedLinesIsNil() {
    #expect(parseProcessState(stat: "garbage") == nil)
    #expect(parseProcessState(stat: "1 (x)") == nil)
    #expect(processState(pid: Int32.max) == nil)
  }

  @Test func ownStateIsALiveState() throws {
    // The main thread's state, which may be sleeping while a worker thread runs this test.
    let state = try #require(processState(pid: getpid()))
    #expect("RSD".contains(state))
  }

  @Test func signalsCarryTheirCNames() {
    #expect(Signal.terminate.rawValue == SIGTERM)
    #expect(Signal.kill.description == "SIGKILL")
    #expect(Signal.stop.description == "SIGSTOP")
    #expect(Signal(rawValue: 40).description == "signal 40")
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
