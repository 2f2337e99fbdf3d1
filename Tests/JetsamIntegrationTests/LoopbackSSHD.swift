import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamTestKit

/// A real OpenSSH server (Debian's /usr/sbin/sshd) on a loopback port, with host and client keys made for the test,
/// started by the test and stopped by pid: a host a lab reaches over SSH, never the machine's own sshd on port 22.
final class LoopbackSSHD {
  let directory: String
  let port: UInt16
  private let process: ChildProcess

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
    process = try ChildProcess(Self.binary, ["-D", "-e", "-f", directory + "/sshd_config"])
    let port = port
    let listening = eventually(timeout: .seconds(20), interval: .milliseconds(20)) {
      process.log.first { $0.contains("Server listening on 127.0.0.1 port \(port)") } != nil || !process.isRunning
    }
    guard listening, process.isRunning else {
      _ = process.stop()
      throw TestKitError("sshd did not start listening on \(port): \(process.log.text)")
    }
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
  var log: String { process.log.text }

  /// Stops sshd and every session it forked, by their pids: the host drops out, as when its sshd goes down with
  /// the connections it carries.
  func stop() {
    var sessions: [StartedProcess] = []
    var parents = [process.pid]
    while let parent = parents.popLast() {
      let children = StartedProcess.children(of: parent)
      sessions += children
      parents += children.map(\.pid)
    }
    _ = process.stop(signal: SIGTERM, grace: 5)
    for session in sessions where session.isAlive { kill(session.pid, SIGKILL) }
    _ = eventually(timeout: .seconds(5), interval: .milliseconds(20)) { sessions.allSatisfy { !$0.isAlive } }
  }
}
