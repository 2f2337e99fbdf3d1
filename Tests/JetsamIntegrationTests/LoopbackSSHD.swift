import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamPlatform
import JetsamTestKit

/// A real OpenSSH server (Debian's /usr/sbin/sshd) on a loopback port, with host and client keys made for the test,
/// started by the test and stopped by pid: a host a lab reaches over SSH, never the machine's own sshd on port 22.
///
/// sshd daemonizes (no `-D`): the test starts it through ``runCommand(_:_:environment:timeout:)``, whose process
/// exits at once, and stops the daemon by the pid in its `PidFile`. It is no Foundation `Process` child of the test:
/// Foundation learns that a child ended when the socket it hands the child closes, then blocks its one manager
/// thread in `waitpid` for that child; sshd closes every inherited descriptor as it starts, so an sshd run with `-D`
/// held that thread in `waitpid` for as long as it ran, and no other child of the test (jetsam-lab, ssh-keygen) was
/// seen to end.
final class LoopbackSSHD {
  let directory: String
  let port: UInt16
  /// The daemon, from its pidfile (pid and start time: a later process with its pid is not it).
  private let daemon: StartedProcess
  /// The sshd binary the tests need (openssh-server, `scripts/install-deps.sh test`).
  static let binary = "/usr/sbin/sshd"
  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binary) }

  /// Makes a host key and starts sshd in `directory`, letting in whoever holds `clientKey` (a public key line).
  init(directory: String, clientKey: String) throws {
    self.directory = directory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    if !FileManager.default.fileExists(atPath: directory + "/host_key") {
      try Self.makeHostKey(in: directory)
    }
    try clientKey.write(toFile: directory + "/authorized_keys", atomically: true, encoding: .utf8)
    port = try SocketDefunctTests.freePort()
    // StrictModes no: the test's temporary directory is not laid out as a home; no PAM, no passwords.
    let config = """
      Port \(port)
      ListenAddress 127.0.0.1
      HostKey \(directory)/host_key
      PidFile \(directory)/sshd.pid
      AuthorizedKeysFile \(directory)/authorized_keys
      PermitRootLogin prohibit-password
      PasswordAuthentication no
      KbdInteractiveAuthentication no
      UsePAM no
      StrictModes no
      AllowStreamLocalForwarding yes
      """
    try config.write(toFile: directory + "/sshd_config", atomically: true, encoding: .utf8)
    // sshd refuses to start without its privilege separation directory (the package's unit makes it at boot).
    try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
    // -E: its log goes to a file (a daemon's stderr is /dev/null). It exits non-zero at once on a bad config or
    // key, before it forks; the pidfile is written once it listens.
    let started = try runCommand(
      Self.binary, ["-f", directory + "/sshd_config", "-E", directory + "/sshd.log"], timeout: .seconds(20))
    guard started.status == 0 else {
      throw TestKitError(
        "sshd did not start (status \(started.status)): \(started.stderr)\(Self.read(directory + "/sshd.log"))")
    }
    var daemon: StartedProcess?
    let port = port
    let listening = eventually(timeout: .seconds(20), interval: .milliseconds(20)) {
      if daemon == nil,
        let pid = Int32(Self.read(directory + "/sshd.pid").trimmingCharacters(in: .whitespacesAndNewlines)),
        let stat = try? ProcessStat.read(pid: pid), !stat.hasEnded
      {
        daemon = StartedProcess(pid: pid, startTime: stat.startTime)
      }
      return daemon != nil && Self.read(directory + "/sshd.log").contains("Server listening on 127.0.0.1 port \(port)")
    }
    guard listening, let daemon, daemon.isAlive else {
      if let daemon { Self.terminate(daemon) }
      throw TestKitError("sshd did not start listening on \(port): \(Self.read(directory + "/sshd.log"))")
    }
    self.daemon = daemon
  }

  /// A file's text, or "" when it cannot be read (yet).
  private static func read(_ path: String) -> String {
    (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
  }

  /// Makes an sshd's host key in `directory` (before any sshd runs: see ``LabHostsTests``).
  static func makeHostKey(in directory: String) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    _ = try runCommand("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", directory + "/host_key"])
  }

  /// This host's line in a known_hosts file.
  func knownHostsLine() throws -> String {
    let key = try String(contentsOfFile: directory + "/host_key.pub", encoding: .utf8)
      .split(separator: " ").prefix(2).joined(separator: " ")
    return "[127.0.0.1]:\(port) \(key)"
  }

  /// sshd's log so far.
  var log: String { Self.read(directory + "/sshd.log") }

  /// Stops sshd and every session it forked, by their pids: the host drops out, as when its sshd goes down with
  /// the connections it carries. Idempotent.
  func stop() {
    var sessions: [StartedProcess] = []
    var parents = daemon.isAlive ? [daemon.pid] : []
    while let parent = parents.popLast() {
      let children = StartedProcess.children(of: parent)
      sessions += children
      parents += children.map(\.pid)
    }
    Self.terminate(daemon)
    for session in sessions where session.isAlive { kill(session.pid, SIGKILL) }
    _ = eventually(timeout: .seconds(10), interval: .milliseconds(20)) { sessions.allSatisfy { !$0.isAlive } }
  }

  /// SIGTERM, a wait until it is gone (init reaps the daemon), SIGKILL after a generous bound.
  private static func terminate(_ process: StartedProcess) {
    guard process.isAlive else { return }
    kill(process.pid, SIGTERM)
    if !eventually(timeout: .seconds(10), interval: .milliseconds(10), { !process.isAlive }) {
      if process.isAlive { kill(process.pid, SIGKILL) }
      _ = eventually(timeout: .seconds(10), interval: .milliseconds(10)) { !process.isAlive }
    }
  }
}
