import Glibc
import JetsamPlatform
import Testing

/// `/proc/PID/stat` parsing, on lines written here and on real processes (no root needed).
@Suite struct ProcessStatTests {
  @Test(arguments: [
    ("1234 (idle) S 1 1234 1234 0 -1", "S"),
    ("77 (a b) T 1 77 77", "T"),
    // comm may itself contain ") X (": only the last ')' ends it.
    ("42 (evil) R (x)) Z 1 42 42", "Z"),
    ("9 ()) D 1", "D"),
  ])
  func stateIsTheFieldAfterTheLastParenthesis(line: String, state: String) {
    #expect(ProcessStat(parsing: line)?.state == state.first)
  }

  @Test func stateOfMissingOrMalformedLinesIsNil() {
    #expect(ProcessStat(parsing: "garbage") == nil)
    #expect(ProcessStat(parsing: "1 (x)") == nil)
    #expect(processState(pid: Int32.max) == nil)
  }

  @Test func ownStateIsALiveState() throws {
    // The main thread's state, which may be sleeping while a worker thread runs this test.
    let state = try #require(processState(pid: getpid()))
    #expect("RSD".contains(state))
  }

  /// A zombie's line as Linux 6.x writes it (52 fields), for a program that named itself `a) Z (b`.
  static let zombieLine =
    "4242 (a) Z (b) Z 1 4242 4242 0 -1 4227412 97 0 0 0 3 5 0 0 20 0 1 0 123456 0 0 18446744073709551615 0 0 0 0 0 0 "
    + "0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 768\n"

  @Test func numberedFieldsAreCountedAfterTheCommand() throws {
    let stat = try #require(ProcessStat(parsing: Self.zombieLine))
    #expect(stat.processID == 4242)
    #expect(stat.command == "a) Z (b")
    #expect(stat.state == "Z")
    #expect(stat.parentProcessID == 1)
    #expect(stat.processGroupID == 4242)
    #expect(stat.sessionID == 4242)
    #expect(stat.userTicks == 3)
    #expect(stat.systemTicks == 5)
    #expect(stat.cpuTicks == 8)
    #expect(stat.startTime == 123_456)
    #expect(stat.exitStatus == 768)
    #expect(stat.hasEnded)
  }

  @Test func fieldsAShortLineLacksAreNil() throws {
    let stat = try #require(ProcessStat(parsing: "1234 (idle) S 1 1234 1234 0 -1"))
    #expect(stat.parentProcessID == 1)
    #expect(stat.startTime == nil)
    #expect(stat.exitStatus == nil)
    #expect(stat.cpuTicks == nil)
  }

  @Test func ownLineHasEveryField() throws {
    let stat = try ProcessStat.read(pid: getpid())
    #expect(stat.processID == getpid())
    #expect(stat.parentProcessID == getppid())
    #expect((stat.startTime ?? 0) > 0)
    #expect(ProcessStat.startTime(pid: getpid()) == stat.startTime)
    #expect(stat.exitStatus == 0)
    #expect(!stat.hasEnded)
  }

  @Test func goneProcessesThrowNoSuchFile() {
    #expect(throws: SystemError.self) { try ProcessStat.read(pid: Int32.max) }
    #expect(ProcessStat.startTime(pid: Int32.max) == nil)
  }

  @Test func aZombieOfOurOwnTellsHowItEnded() throws {
    let pid = try spawn("/bin/sh", "-c", "exit 3")
    defer {
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
    var stat = try ProcessStat.read(pid: pid)
    let deadline = ContinuousClock.now + .seconds(10)
    while stat.state != "Z" && ContinuousClock.now < deadline {
      usleep(5_000)
      stat = try ProcessStat.read(pid: pid)
    }
    let startTime = try #require(stat.startTime)
    #expect(ProcessStat.zombieExitStatus(pid: pid, startTime: startTime) == 3 << 8)
    // Another process that got the same pid (another start time) is not taken for it.
    #expect(ProcessStat.zombieExitStatus(pid: pid, startTime: startTime + 1) == nil)
  }

  @Test func aLiveProcessHasNoZombieStatus() throws {
    let startTime = try #require(ProcessStat.startTime(pid: getpid()))
    #expect(ProcessStat.zombieExitStatus(pid: getpid(), startTime: startTime) == nil)
  }

  /// Starts a program as a child of the test process, which reaps it.
  private func spawn(_ arguments: String...) throws -> pid_t {
    let strings = arguments.map { strdup($0) } + [nil]
    defer { for string in strings { free(string) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, arguments[0], nil, nil, strings, environ)
    guard result == 0 else { throw SystemError(code: result, "posix_spawn \(arguments[0])") }
    return pid
  }
}
