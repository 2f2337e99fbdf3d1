import Foundation
import JetsamControlClient
import JetsamDaemonProcess

/// One remote host during a lab run: its forwarding, its clock, its watch and the session its steps run in, or why
/// it is out of the run (it could not be reached, or it dropped out).
final class HostLink {
  let host: LabHost
  var forward: SSHForward?
  var clock: HostClock?
  var timeline: Timeline?
  var session: LabSession?
  /// Why the host is out, once it is: its remaining steps fail with this.
  private(set) var problem: String?

  init(host: LabHost) { self.host = host }

  /// Connects: the forwarding, the clock estimate, the watch. On failure the host is out of the run from the start.
  func connect(directory: String, sshConfig: String?, interval: Double) {
    do {
      let forward = try SSHForward(
        host: host, localSocket: directory + "/\(host.name).sock", logPath: directory + "/\(host.name).ssh.log",
        sshConfig: sshConfig, timeout: .seconds(20))
      self.forward = forward
      clock = try HostClock.estimate(socket: forward.localSocket)
      timeline = try Timeline(socket: forward.localSocket, interval: interval)
    } catch let error as LabError {
      problem = error.description
    } catch {
      problem = "host \(host.name) (\(host.spec)): \(error)"
    }
  }

  /// Why the host is out of the run, if it is; looks whether the forwarding or the watch has ended since.
  func checkReachable() -> String? {
    if problem != nil { return problem }
    if let why = timeline?.endReason, let forward {
      // The watch runs through the forwarding: when ssh's connection goes, the watch sees its end a moment before
      // ssh has exited. A watch that ended with ssh is ssh's ending.
      _ = eventually(timeout: .seconds(2), interval: .milliseconds(20)) { !forward.isRunning }
      problem =
        "host \(host.name) (\(host.spec)) dropped out: "
        + (forward.endReason ?? "its jetsamd's watch ended (\(why))")
    } else if let why = forward?.endReason {
      problem = "host \(host.name) (\(host.spec)) dropped out: \(why)"
    } else if let why = timeline?.endReason {
      problem = "host \(host.name) (\(host.spec)) dropped out: its jetsamd's watch ended (\(why))"
    }
    return problem
  }

  /// Takes the host out of the run for `why`.
  func fail(_ why: String) {
    if problem == nil { problem = why }
  }

  /// Ends the watch and stops ssh by its pid.
  func close() {
    timeline?.close()
    forward?.stop()
  }
}
