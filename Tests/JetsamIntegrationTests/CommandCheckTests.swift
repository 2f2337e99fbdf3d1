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

  @Test(
    "a member is checked as itself: one refusal for what is and is not in a place it cannot reach, no mode unseen")
  func memberCheckedAsItself() throws {
    let daemon = try DaemonHarness(config: #"{ controlGroup: "nogroup" }"#)
    defer { daemon.stop() }
    // A root-only directory (0700) inside one anyone may pass, holding a data file and a script anyone may run.
    let open = NSTemporaryDirectory() + "jetsam-command-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let secret = open + "/secret"
    try FileManager.default.createDirectory(atPath: secret, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: open) }
    #expect(chmod(open, 0o755) == 0 && chmod(secret, 0o700) == 0)
    for (name, mode) in [("data.txt", mode_t(0o644)), ("hidden.sh", 0o755)] {
      try "#!/bin/sh\nexit 0\n".write(toFile: secret + "/" + name, atomically: true, encoding: .utf8)
      #expect(chmod(secret + "/" + name, mode) == 0)
    }
    try "notes\n".write(toFile: open + "/notes.txt", atomically: true, encoding: .utf8)
    #expect(chmod(open + "/notes.txt", 0o644) == 0)

    // nobody (primary group nogroup, the control group) is a member, not root.
    func launchAsMember(ready program: String) throws -> CommandResult {
      try daemon.ctl(
        asUser: "nobody", group: "nogroup", ["launch", "probe", "--ready", program, "--", "/bin/sleep", "30"])
    }
    var refusals: [String] = []
    for name in ["data.txt", "nothere.sh", "hidden.sh"] {
      let launched = try launchAsMember(ready: secret + "/" + name)
      #expect(launched.status == 1, "\(name): \(launched.stderr)")
      refusals.append(launched.stderr.replacingOccurrences(of: name, with: "NAME"))
    }
    #expect(
      refusals
        == Array(
          repeating: "jetsamctl: --ready: \(secret)/NAME: cannot be reached by user nobody (Permission denied)\n",
          count: 3),
      "the same words whether the file is there or not, with no mode")
    #expect(try daemon.apps()["probe"] == nil, "nothing was started")

    // What the member could see for itself is still named: a file it may stat but not execute, with its mode.
    let notes = try launchAsMember(ready: open + "/notes.txt")
    #expect(notes.stderr == "jetsamctl: --ready: \(open)/notes.txt: not executable by user nobody (mode 0644)\n")
    // Root, who may look into the directory, is told what is there.
    let byRoot = try daemon.ctl(["launch", "probe", "--ready", secret + "/data.txt", "--", "/bin/sleep", "30"])
    #expect(byRoot.stderr == "jetsamctl: --ready: \(secret)/data.txt: not executable by user root (mode 0644)\n")
    // And a command the member may run launches.
    let fine = try launchAsMember(ready: "/bin/true")
    #expect(fine.status == 0, "\(fine.stderr)")
    #expect(try daemon.ctl(["kill", "probe"]).status == 0)
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
    #expect(try daemon.apps()["fine"]?.status.pid != nil)
    #expect(try daemon.ctl(["kill", "fine"]).status == 0)
  }
}
