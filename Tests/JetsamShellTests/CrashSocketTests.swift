import Glibc
import JetsamCore
import JetsamTestTraits
import Testing

@testable import JetsamShell

/// The crash handler's report line, as jetsamd reads it.
@Suite(.offThePool) struct CrashSocketTests {
  @Test("a report line gives the process, thread, signal, code and address; anything else is refused")
  func parses() {
    #expect(
      CrashReportLine.parse("crash pid=12 tid=13 signal=11 code=1 address=0x10")
        == CrashReport(pid: 12, tid: 13, signal: 11, code: 1, address: 16))
    #expect(CrashReportLine.parse("crash pid=12 tid=13 signal=6 code=-6 address=0x0")?.code == -6)
    for bad in [
      "", "crash", "crash pid=12 tid=13 signal=11 code=1", "crash pid=0 tid=1 signal=11 code=1 address=0x0",
      "crash pid=1 tid=1 signal=99 code=1 address=0x0", "crash pid=1 tid=1 signal=11 code=1 address=16",
      "oops pid=1 tid=1 signal=11 code=1 address=0x0",
    ] {
      #expect(CrashReportLine.parse(bad) == nil, "\(bad)")
    }
  }

  @Test("the environment preloads the handler before what the app preloads itself")
  func environment() {
    let variables = CrashSocket.environment(library: "/lib/jetsam/libjetsam-crash.so", preloaded: "/opt/x.so")
    #expect(variables["LD_PRELOAD"] == "/lib/jetsam/libjetsam-crash.so:/opt/x.so")
    // The handler's own high number: it keeps a socket there where it is, so that nothing moves it (and no shell
    // passes on a number the socket has left).
    #expect(variables["JETSAM_CRASH_FD"] == "900")
    // The Swift runtime's crash handler is off, unless the app's own environment says otherwise.
    #expect(variables["SWIFT_BACKTRACE"] == "enable=no")
    let chosen = CrashSocket.environment(library: "/l.so", preloaded: nil, swiftBacktrace: "output-to=/tmp")
    #expect(chosen["SWIFT_BACKTRACE"] == "output-to=/tmp")
  }
}

/// Whether a report is taken: only when the kernel's sender is the process named, in the app, with that thread.
@Suite(.offThePool) struct CrashReportCheckTests {
  let report = CrashReport(pid: 40, tid: 41, signal: 11, code: 1, address: 0)

  func refusal(sender: Int32?, processes: [Int32] = [40, 50], threads: Set<Int32> = [40, 41]) -> String? {
    CrashReportCheck.refusal(
      of: report, sender: sender, appProcesses: { processes },
      isThread: { tid, pid in pid == 40 && threads.contains(tid) })
  }

  @Test("a report sent by the process it names, in the app, naming one of its threads, is taken")
  func taken() {
    #expect(refusal(sender: 40) == nil)
  }

  @Test("a report with no sender, another sender, a process outside the app or a foreign thread is refused, saying why")
  func refused() {
    #expect(refusal(sender: nil)?.contains("no sender") == true)
    #expect(refusal(sender: 0)?.contains("no sender") == true)
    #expect(refusal(sender: 50) == "process 50 sent it, naming process 40")
    #expect(refusal(sender: 40, processes: [50]) == "process 40 is not in the app's cgroup")
    #expect(refusal(sender: 40, threads: [40]) == "thread 41 is not one of process 40's")
  }

  @Test("a thread of this process is one of its threads; another process's is not")
  func threads() {
    #expect(CrashReportCheck.isThread(getpid(), of: getpid()))
    #expect(!CrashReportCheck.isThread(1, of: getpid()))
  }
}
