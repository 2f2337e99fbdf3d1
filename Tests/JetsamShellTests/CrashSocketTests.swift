import JetsamCore
import Testing

@testable import JetsamShell

/// The crash handler's report line, as jetsamd reads it.
@Suite struct CrashSocketTests {
  @Test("a report line gives the process, thread, signal, code and address; anything else is refused")
  func parses() {
    #expect(
      CrashSocket.parse("crash pid=12 tid=13 signal=11 code=1 address=0x10")
        == CrashReport(pid: 12, tid: 13, signal: 11, code: 1, address: 16))
    #expect(CrashSocket.parse("crash pid=12 tid=13 signal=6 code=-6 address=0x0")?.code == -6)
    for bad in [
      "", "crash", "crash pid=12 tid=13 signal=11 code=1", "crash pid=0 tid=1 signal=11 code=1 address=0x0",
      "crash pid=1 tid=1 signal=99 code=1 address=0x0", "crash pid=1 tid=1 signal=11 code=1 address=16",
      "oops pid=1 tid=1 signal=11 code=1 address=0x0",
    ] {
      #expect(CrashSocket.parse(bad) == nil, "\(bad)")
    }
  }

  @Test("the environment preloads the handler before what the app preloads itself")
  func environment() {
    let variables = CrashSocket.environment(library: "/lib/jetsam/libjetsam-crash.so", preloaded: "/opt/x.so")
    #expect(variables["LD_PRELOAD"] == "/lib/jetsam/libjetsam-crash.so:/opt/x.so")
    #expect(variables["JETSAM_CRASH_FD"] == "4")
  }
}
