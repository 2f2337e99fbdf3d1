import Foundation
import Glibc
import JetsamControlClient
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol

/// OpenSSH's own forwarding of a local Unix socket to a host's jetsamd control socket (`ssh -N -L LOCAL:REMOTE`):
/// the lab's one way to a remote daemon, with nothing of ours on the far side but jetsamd. Started by the lab
/// (a ``SpawnedProgram``: its own session, so the terminal's Ctrl-C reaches the lab, which stops it in order).
final class SSHForward {
  let host: LabHost
  /// The local end: connecting here connects to jetsamd's socket on the host.
  let localSocket: String
  /// ssh's own output (authentication and forwarding errors).
  let logPath: String
  private let process: SpawnedProgram

  /// Starts `ssh` (with `sshConfig` as its `-F` file, if given) forwarding `localSocket` to the host's socket, and
  /// waits (up to `timeout`) until jetsamd answers through it; throws naming the host and what went wrong (ssh's own
  /// words when it ended).
  init(host: LabHost, localSocket: String, logPath: String, sshConfig: String?, timeout: Duration) throws {
    self.host = host
    self.localSocket = localSocket
    self.logPath = logPath
    unlink(localSocket)
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    var arguments = ["-N", "-o", "ExitOnForwardFailure=yes", "-o", "BatchMode=yes"]
    // A dead peer ends the forwarding within seconds rather than at TCP's much later timeout: the host drops out.
    arguments += ["-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3"]
    if let sshConfig { arguments += ["-F", sshConfig] }
    arguments += ["-L", localSocket + ":" + host.socket, host.destination]
    let fd = open(logPath, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard fd >= 0 else { throw LabError("host \(host.name) (\(host.spec)): cannot open \(logPath)") }
    let log = FileDescriptor(rawValue: fd)
    defer { log.close() }
    let process: SpawnedProgram
    do {
      process = try SpawnedProgram(LabRunner.searchPath("ssh") ?? "/usr/bin/ssh", arguments, stdout: log, stderr: log)
    } catch {
      throw LabError("host \(host.name) (\(host.spec)): cannot start ssh: \(error)")
    }
    self.process = process
    var lastProblem = "its socket did not appear"
    let answered = waitFor(timeout: timeout, interval: .milliseconds(50)) { () -> Bool? in
      if !process.isRunning { return false }
      guard FileManager.default.fileExists(atPath: localSocket) else { return nil }
      do {
        let answer = try ControlClient(path: localSocket).send(ControlRequest(verb: .ps))
        if answer.ok { return true }
        lastProblem = "jetsamd answered: \(answer.error?.message ?? "not ok")"
      } catch {
        lastProblem = "\(error)"
      }
      return nil
    }
    guard answered == true else {
      let why =
        process.isRunning
        ? "jetsamd did not answer at \(host.socket) within \(Int(timeout.seconds)) s (\(lastProblem))"
        : "ssh ended (status \(process.terminationStatus)): \(logTail())"
      stop()
      throw LabError("host \(host.name) (\(host.spec)): \(why)")
    }
  }

  /// ssh's pid.
  var pid: Int32 { process.pid }

  /// Whether the forwarding still runs.
  var isRunning: Bool { process.isRunning }

  /// Why the forwarding ended (ssh's status and last words), or nil while it runs.
  var endReason: String? {
    process.isRunning ? nil : "ssh ended (status \(process.terminationStatus)): \(logTail())"
  }

  /// The last lines ssh wrote, on one line.
  func logTail() -> String {
    let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    let lines = text.split(separator: "\n").suffix(3).map { $0.trimmingCharacters(in: .whitespaces) }
    return lines.isEmpty ? "no output" : lines.joined(separator: " / ")
  }

  /// Stops ssh through its pidfd (SIGTERM, then SIGKILL after 5 s) and removes the local socket.
  func stop() {
    process.stop(signal: SIGTERM, grace: .seconds(5))
    unlink(localSocket)
  }
}
