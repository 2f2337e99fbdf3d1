import Foundation
import Glibc
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// A command that cannot run refuses its launch, naming the option and the program, before anything is started
/// (issue 27): through a real jetsamd, as `jetsamctl launch` is used.
@Suite(
  "Commands that cannot run", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(2)), .offThePool)
struct CommandCheckTests {
  @Test("a --ready program not on the PATH refuses the launch: exit 1, the option and the PATH named, no app")
  func missingReadyProgram() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let marker = daemon.directory + "/started"
    let launched = try daemon.ctl([
      "launch", "ghost", "--ready", "no-such-program-27 -p 6380 PING", "--", "/bin/sh", "-c",
      "touch \(marker); sleep 60",
    ])
    #expect(launched.status == 1)
    #expect(
      launched.stderr
        == "jetsamctl: --ready: no-such-program-27: not found in /usr/local/bin:/usr/bin:/bin\n")
    // Nothing was started: the policy never heard of the app, and its program never ran.
    #expect(try daemon.apps()["ghost"] == nil)
    #expect(access(marker, F_OK) != 0)
  }

  @Test("a script without execute permission as --on didEnterBackground refuses the launch, naming it and its mode")
  func nonExecutableHook() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let script = daemon.directory + "/save.sh"
    try "#!/bin/sh\necho saved\n".write(toFile: script, atomically: true, encoding: .utf8)
    #expect(chmod(script, 0o644) == 0)
    let launched = try daemon.ctl([
      "launch", "saver", "--on", "didEnterBackground=\(script) --now", "--", "/bin/sleep", "60",
    ])
    #expect(launched.status == 1)
    #expect(
      launched.stderr
        == "jetsamctl: --on didEnterBackground: \(script): not executable by user root (mode 0644)\n")
    #expect(try daemon.apps()["saver"] == nil)
  }

  @Test("commands that can run (or that a shell must judge) still launch, and their output reaches the app's log")
  func validCommandsLaunch() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let launched = try daemon.ctl([
      "launch", "fine", "--ready", "LANG=C env echo ready-said-so", "--on", "didEnterBackground=exec true", "--",
      "/bin/sleep", "60",
    ])
    #expect(launched.status == 0, "\(launched.stderr)")
    let log = daemon.stateDirectory + "/logs/fine.log"
    try daemon.waitUntil("the ready command's output to be copied into the app's log") {
      ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("ready-said-so")
    }
    #expect(try daemon.apps()["fine"]?.pid != nil)
    #expect(try daemon.ctl(["kill", "fine"]).status == 0)
  }
}
