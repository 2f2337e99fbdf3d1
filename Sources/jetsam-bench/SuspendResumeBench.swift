import Foundation
import Glibc
import JetsamControlClient
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit

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
  /// One request naming every app (`jetsamctl suspend A B C…`): the daemon stops them all and waits once (ms).
  /// Repeated ``SuspendResumeBench/batchRounds`` times: one round on a shared machine says little.
  var suspendBatch = Distribution([])
  var resumeBatch = Distribution([])
  var suspendBatchCPU = Distribution([])
  var resumeBatchCPU = Distribution([])
  /// Apps the kernel showed stopped right after the batch suspend, and running again after the batch resume.
  var verifiedBatchSuspended = 0
  var verifiedBatchResumed = 0
  /// The daemon's CPU time (the whole process, its CPU-time clock) during the pipelined batches (ms).
  var suspendDaemonCPU: Double = 0
  var resumeDaemonCPU: Double = 0
  /// Apps the kernel showed stopped (state T, or `frozen 1`) right after the sequential suspend, and running again
  /// right after the resume.
  var verifiedSuspended = 0
  var verifiedResumed = 0
  /// Set when jetsamd could not launch every app asked for (the rest were measured).
  var launchFailure: String?
  /// The daemon's own memory (RssAnon) before the apps were launched: what the idle cost's is compared with, for
  /// what each app costs it (its record, its metrics, its kept files).
  var anonymousBytesBeforeLaunch: Int64 = 0
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
    // A roomy device with the default percentages: 1,000 idle apps stay far from every threshold. The loop on the
    // normal scheduler, as jetsamd runs by default, unless the bench is asked for real-time priority.
    let realtime = options.fleetRealtimePriority.map { "daemonRealtimePriority: \($0)," } ?? ""
    daemon = try JetsamdInstance(
      binaries: binaries, label: "fleet-\(mode)", root: root, device: "ram: \"4G\"",
      extra: "suspend: { mode: \"\(mode)\", backgroundGrace: null }, " + realtime)
    client = try daemon.client()
  }

  func stop() { daemon.stop() }

  /// How many times the batch suspend and resume are measured (their medians are reported; each round's
  /// kernel check must see every app stopped, then running again).
  static let batchRounds = 5

  /// The apps measured: all of ``BenchOptions/appNames`` unless jetsamd failed to launch some.
  private(set) var names: [String] = []
  /// Why fewer apps than asked for were launched.
  private(set) var launchFailure: String?

  func measure() throws -> SuspendResumeResult {
    let anonymousBefore = ProcessStats.anonymousBytes(daemon.pid)
    let launchStart = MonotonicTime.now()
    var launched: [String] = []
    for name in options.appNames {
      do {
        pids[name] = try client.launch(name, command: [binaries.testapp, "idle"], background: true)
        launched.append(name)
      } catch {
        // Go on with the apps that did start, and say why the others did not.
        let reason = daemon.log.first { $0.contains("launch of \(name) failed") }?.text ?? "\(error)"
        launchFailure = "jetsamd could launch only \(launched.count) of \(options.apps) apps: \(reason)"
        break
      }
    }
    names = launched
    // Nothing to measure: say why, rather than fail later on an empty batch.
    guard !names.isEmpty else { throw BenchError(launchFailure ?? "jetsamd launched no app") }
    var result = SuspendResumeResult(mode: mode, apps: names.count)
    result.launchTotal = MonotonicTime.seconds(since: launchStart) * 1000
    result.launchFailure = launchFailure
    result.anonymousBytesBeforeLaunch = anonymousBefore
    let running = try client.apps().values.filter { $0.status.state.coarse == .background }.count
    guard running == names.count else { throw BenchError("only \(running) of \(names.count) apps are running") }
    // Each measurement starts from a quiet daemon: after answering, jetsamd still saves its state file and rewrites
    // oom_score_adj of every app whose band changed (~50 ms for 1,000 apps), which would otherwise land on the
    // next measurement.
    waitUntilQuiet()
    (result.suspendTotal, result.suspendEach) = try sequential(.suspend)
    result.verifiedSuspended = names.filter { isStopped($0) }.count
    waitUntilQuiet()
    (result.resumeTotal, result.resumeEach) = try sequential(.resume)
    result.verifiedResumed = names.filter { !isStopped($0) }.count

    waitUntilQuiet()
    (result.suspendPipelined, result.suspendDaemonCPU) = try pipelined(.suspend)
    waitUntilQuiet()
    (result.resumePipelined, result.resumeDaemonCPU) = try pipelined(.resume)

    result.verifiedBatchSuspended = names.count
    result.verifiedBatchResumed = names.count
    var batches: (suspend: [Double], suspendCPU: [Double], resume: [Double], resumeCPU: [Double]) = ([], [], [], [])
    for _ in 0..<Self.batchRounds {
      waitUntilQuiet()
      let (suspend, suspendCPU) = try batch(.suspend)
      batches.suspend.append(suspend)
      batches.suspendCPU.append(suspendCPU)
      // The worst round counts.
      result.verifiedBatchSuspended = min(result.verifiedBatchSuspended, names.filter { isStopped($0) }.count)
      waitUntilQuiet()
      let (resume, resumeCPU) = try batch(.resume)
      batches.resume.append(resume)
      batches.resumeCPU.append(resumeCPU)
      result.verifiedBatchResumed = min(result.verifiedBatchResumed, names.filter { !isStopped($0) }.count)
    }
    result.suspendBatch = Distribution(batches.suspend)
    result.suspendBatchCPU = Distribution(batches.suspendCPU)
    result.resumeBatch = Distribution(batches.resume)
    result.resumeBatchCPU = Distribution(batches.resumeCPU)

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

  /// Waits until the daemon has used less than 1 ms of CPU over 100 ms (at most 5 s).
  private func waitUntilQuiet() {
    let start = MonotonicTime.now()
    var last = ProcessStats.scheduledSeconds(daemon.pid) ?? 0
    while MonotonicTime.seconds(since: start) < 5 {
      MonotonicTime.sleep(milliseconds: 100)
      let now = ProcessStats.scheduledSeconds(daemon.pid) ?? 0
      if now - last < 0.001 { return }
      last = now
    }
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

  /// One request naming every app; returns the wall time and the daemon's CPU time (ms).
  private func batch(_ verb: ControlVerb) throws -> (Double, Double) {
    var request = ControlRequest(verb: verb)
    request.apps = names
    let line = try client.encode(request)
    let cpuBefore = ProcessStats.scheduledSeconds(daemon.pid) ?? 0
    let start = MonotonicTime.now()
    // The clock stops when the answer has arrived: decoding 1,000 apps' JSON is the client's time, not jetsamd's.
    let answer = try client.exchange(line: line)
    let wall = MonotonicTime.seconds(since: start) * 1000
    let cpu = ((ProcessStats.scheduledSeconds(daemon.pid) ?? 0) - cpuBefore) * 1000
    let response = try client.decode(answer)
    guard response.ok else { throw BenchError("\(verb.rawValue) (batch): \(response.error?.message ?? "refused")") }
    return (wall, cpu)
  }

  /// Runs `jetsamctl --socket S VERB NAME` and returns its wall time (ms).
  private func cli(_ verb: String, _ name: String) throws -> Double {
    let start = MonotonicTime.now()
    let result = try runCommand(binaries.jetsamctl, ["--socket", daemon.socketPath, verb, name])
    let elapsed = MonotonicTime.seconds(since: start) * 1000
    guard result.status == 0 else {
      throw BenchError("jetsamctl \(verb) \(name) failed: \(result.stdout)\(result.stderr)")
    }
    return elapsed
  }

  /// Whether the kernel shows the app stopped: state T (signal mode) or its cgroup frozen (freezer mode).
  private func isStopped(_ name: String) -> Bool {
    guard let pid = pids[name] else { return false }
    if mode == "freezer" {
      let events =
        (try? String(contentsOfFile: "\(daemon.deviceUnifiedDirectory)/\(name)/cgroup.events", encoding: .utf8)) ?? ""
      return events.contains("frozen 1")
    }
    return processState(pid: pid) == "T"
  }
}
