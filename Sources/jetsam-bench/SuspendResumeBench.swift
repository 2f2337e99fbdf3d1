import Foundation
import Glibc
import JetsamProtocol

/// What suspending and resuming a fleet of idle apps cost, seen from a client of the control socket.
struct SuspendResumeResult: Sendable {
  let mode: String
  let apps: Int
  /// Wall time of launching every app, one request after the other (ms).
  var launchTotal: Double = 0
  /// One client, one request after the other: the wall time for all apps, and each request's round trip (ms).
  var suspendTotal: Double = 0
  var suspendEach = Distribution([])
  var resumeTotal: Double = 0
  var resumeEach = Distribution([])
  /// Every request written at once, then every answer read: about the daemon's own time for the batch (ms).
  var suspendPipelined: Double = 0
  var resumePipelined: Double = 0
  /// The daemon's CPU time (all threads, schedstat) during the pipelined batches (ms).
  var suspendDaemonCPU: Double = 0
  var resumeDaemonCPU: Double = 0
  /// Apps the kernel showed stopped (state T, or `frozen 1`) right after the sequential suspend, and running again
  /// right after the resume.
  var verifiedSuspended = 0
  var verifiedResumed = 0
  /// `jetsamctl suspend` / `resume` of one app as a user runs it (a process start included), ms.
  var cliSuspend = Distribution([])
  var cliResume = Distribution([])
}

/// Launches `apps` idle apps (`jetsam-testapp idle`, in the background) on a jetsamd of its own and times suspending
/// and resuming all of them through the control socket; the daemon stays up (apps suspended) for the idle-cost
/// measurement until ``stop()``.
final class SuspendResumeBench {
  let binaries: Binaries
  let options: BenchOptions
  let mode: String
  let daemon: JetsamdInstance
  private let client: ControlClient
  private var pids: [String: Int32] = [:]

  init(binaries: Binaries, options: BenchOptions, root: String, mode: String) throws {
    self.binaries = binaries
    self.options = options
    self.mode = mode
    // A roomy device with the default percentages: 200 idle apps stay far from every threshold.
    daemon = try JetsamdInstance(
      binaries: binaries, label: "fleet-\(mode)", root: root, device: "ram: \"4G\"",
      extra: "suspend: { mode: \"\(mode)\", backgroundGrace: null },")
    client = try daemon.client()
  }

  func stop() { daemon.stop() }

  var names: [String] { (0..<options.apps).map { String(format: "idle%03d", $0) } }

  func measure() throws -> SuspendResumeResult {
    var result = SuspendResumeResult(mode: mode, apps: options.apps)
    let launchStart = MonotonicTime.now()
    for name in names {
      pids[name] = try client.launch(name, command: [binaries.testapp, "idle"], background: true)
    }
    result.launchTotal = MonotonicTime.seconds(since: launchStart) * 1000
    let running = try client.apps().values.filter { $0.state == "background" }.count
    guard running == options.apps else { throw BenchError("only \(running) of \(options.apps) apps are running") }
    MonotonicTime.sleep(milliseconds: 200)

    (result.suspendTotal, result.suspendEach) = try sequential(.suspend)
    result.verifiedSuspended = names.filter { isStopped($0) }.count
    (result.resumeTotal, result.resumeEach) = try sequential(.resume)
    result.verifiedResumed = names.filter { !isStopped($0) }.count

    (result.suspendPipelined, result.suspendDaemonCPU) = try pipelined(.suspend)
    (result.resumePipelined, result.resumeDaemonCPU) = try pipelined(.resume)

    var suspendCLI: [Double] = []
    var resumeCLI: [Double] = []
    for name in names.prefix(10) {
      suspendCLI.append(try cli("suspend", name))
      resumeCLI.append(try cli("resume", name))
    }
    result.cliSuspend = Distribution(suspendCLI)
    result.cliResume = Distribution(resumeCLI)

    // Leave every app suspended for the idle-cost phase.
    _ = try pipelined(.suspend)
    return result
  }

  /// One request per app, each waiting for its answer.
  private func sequential(_ verb: ControlVerb) throws -> (Double, Distribution) {
    let lines = try names.map { try client.encode(ControlRequest(verb: verb, app: $0)) }
    var each: [Double] = []
    each.reserveCapacity(lines.count)
    let start = MonotonicTime.now()
    for line in lines {
      let sent = MonotonicTime.now()
      let response = try client.send(line: line)
      each.append(MonotonicTime.milliseconds(from: sent, to: MonotonicTime.now()))
      guard response.ok else { throw BenchError("\(verb.rawValue): \(response.error?.message ?? "refused")") }
    }
    return (MonotonicTime.seconds(since: start) * 1000, Distribution(each))
  }

  /// Every request at once; returns the wall time and the daemon's CPU time for the batch (ms).
  private func pipelined(_ verb: ControlVerb) throws -> (Double, Double) {
    let lines = try names.map { try client.encode(ControlRequest(verb: verb, app: $0)) }
    let cpuBefore = ProcessStats.scheduledSeconds(daemon.pid) ?? 0
    let start = MonotonicTime.now()
    let responses = try client.pipeline(lines)
    let wall = MonotonicTime.seconds(since: start) * 1000
    let cpu = ((ProcessStats.scheduledSeconds(daemon.pid) ?? 0) - cpuBefore) * 1000
    if let refused = responses.first(where: { !$0.ok }) {
      throw BenchError("\(verb.rawValue) (pipelined): \(refused.error?.message ?? "refused")")
    }
    return (wall, cpu)
  }

  /// Runs `jetsamctl --socket S VERB NAME` and returns its wall time (ms).
  private func cli(_ verb: String, _ name: String) throws -> Double {
    let start = MonotonicTime.now()
    let (status, output) = try ChildProcess.run(binaries.jetsamctl, ["--socket", daemon.socketPath, verb, name])
    let elapsed = MonotonicTime.seconds(since: start) * 1000
    guard status == 0 else { throw BenchError("jetsamctl \(verb) \(name) failed: \(output)") }
    return elapsed
  }

  /// Whether the kernel shows the app stopped: state T (signal mode) or its cgroup frozen (freezer mode).
  private func isStopped(_ name: String) -> Bool {
    guard let pid = pids[name] else { return false }
    if mode == "freezer" {
      let events = (try? String(contentsOfFile: "\(daemon.deviceUnifiedDirectory)/\(name)/cgroup.events", encoding: .utf8)) ?? ""
      return events.contains("frozen 1")
    }
    return ProcessStats.state(pid) == "T"
  }
}
