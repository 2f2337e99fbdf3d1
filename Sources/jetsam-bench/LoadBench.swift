import Foundation
import JetsamControlClient
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit

/// What misbehaving control clients (``ControlLoad``) cost everyone else: a well-behaved client's round trips and
/// jetsam kills, each measured idle and then under the load, on one jetsamd.
struct LoadResult: Sendable {
  let rate: Int
  var slowTried = 0
  var slowHeld = 0
  /// Requests the firehose wrote per second while the loaded figures were measured.
  var firehosePerSecond: Double = 0
  var idleStatus = Distribution([])
  var loadedStatus = Distribution([])
  /// The same client's round trips while an app's `ready` command prints without stopping (`yes`), before the load.
  var readyFloodStatus = Distribution([])
  var idleKills: VictimSeries
  var loadedKills: VictimSeries
  /// From an app's death (a SIGKILL from outside) to its record whole in the log (ms).
  var idleRecordDelay = Distribution([])
  var loadedRecordDelay = Distribution([])
  /// jetsamd's RSS before the load and at its end (MB).
  var idleRSS: Double = 0
  var loadedRSS: Double = 0

  init(rate: Int) {
    self.rate = rate
    idleKills = VictimSeries(tool: "jetsamd", rate: rate)
    loadedKills = VictimSeries(tool: "jetsamd", rate: rate)
  }
}

enum LoadBench {
  /// Slow connections tried (the daemon holds at most 256 connections in all: the rest are refused).
  static let slowConnections = 500
  /// Status round trips per measurement.
  static let roundTrips = 1_000

  static func measure(_ jetsamd: JetsamdVictimBench, rate: Int, kills: Int) throws -> LoadResult {
    var result = LoadResult(rate: rate)
    try jetsamd.prepare(rate: rate)
    let client = try ControlClient(path: jetsamd.daemon.socketPath)
    result.idleStatus = try roundTrips(client)
    result.idleKills = try killSeries(jetsamd, rate: rate, count: kills)
    result.idleRecordDelay = try recordDelays(jetsamd, client: client, label: "idle")
    result.idleRSS = Double(ProcessStats.residentBytes(jetsamd.daemon.pid) ?? 0) / 1_048_576
    result.readyFloodStatus = try readyFlood(client)

    let load = try ControlLoad(socket: jetsamd.daemon.socketPath, slowConnections: slowConnections)
    defer { load.stop() }
    result.slowTried = load.triedSlow
    result.slowHeld = load.heldSlow
    let firehoseStart = load.firehoseCount
    let start = MonotonicTime.now()
    result.loadedStatus = try roundTrips(client)
    result.loadedKills = try killSeries(jetsamd, rate: rate, count: kills)
    result.loadedRecordDelay = try recordDelays(jetsamd, client: client, label: "loaded")
    result.firehosePerSecond = Double(load.firehoseCount - firehoseStart) / MonotonicTime.seconds(since: start)
    result.loadedRSS = Double(ProcessStats.residentBytes(jetsamd.daemon.pid) ?? 0) / 1_048_576
    return result
  }

  private static func roundTrips(_ client: ControlClient) throws -> Distribution {
    Distribution(try client.statusRoundTrips { $0.count == roundTrips })
  }

  /// Times status round trips for ``readyFloodSeconds`` from the launch of an app whose `ready` command is `yes`,
  /// as `jetsamctl launch ready-yes --ready yes -- sleep 1000` asks (within the command's first run: it is killed at
  /// its 5 s timeout), then kills the app.
  private static func readyFlood(_ client: ControlClient) throws -> Distribution {
    progress("another client's status while an app's ready command is yes")
    var request = ControlRequest(verb: .launch, app: "ready-yes")
    request.command = ["/bin/sleep", "1000"]
    request.ready = ["/bin/sh", "-c", "yes"]
    try client.sendAccepted(request)
    defer { _ = try? client.sendAccepted(ControlRequest(verb: .kill, app: "ready-yes")) }
    let start = MonotonicTime.now()
    return Distribution(try client.statusRoundTrips { _ in MonotonicTime.seconds(since: start) >= readyFloodSeconds })
  }

  /// How long status is timed while `yes` floods its pipe.
  static let readyFloodSeconds = 3.0

  /// Launches an idle app, SIGKILLs it from here and waits for its record in the log, `recordRounds` times.
  private static func recordDelays(_ jetsamd: JetsamdVictimBench, client: ControlClient, label: String) throws
    -> Distribution
  {
    let log = jetsamd.daemon.recordLogPath
    var delays: [Double] = []
    for round in 0..<recordRounds {
      let pid = try client.launch(
        "record-\(label)-\(round)", command: [jetsamd.binaries.testapp, "idle"], background: true)
      let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: log))
      defer { try? handle.close() }
      handle.seekToEndOfFile()
      let needle = Data("\"pid\":\(pid),".utf8)
      var seen = Data()
      let start = MonotonicTime.now()
      kill(pid, SIGKILL)
      while seen.range(of: needle) == nil {
        guard MonotonicTime.seconds(since: start) < 10 else { throw BenchError("no record for pid \(pid) in 10 s") }
        seen += handle.availableData
        usleep(200)
      }
      delays.append(MonotonicTime.milliseconds(from: start, to: MonotonicTime.now()))
    }
    return Distribution(delays)
  }

  /// Deaths timed to their record, idle and under load.
  static let recordRounds = 20

  private static func killSeries(_ jetsamd: JetsamdVictimBench, rate: Int, count: Int) throws -> VictimSeries {
    var series = VictimSeries(tool: "jetsamd", rate: rate)
    for index in 0..<(3 * count) where series.runs.count < count {
      do {
        series.add(try jetsamd.measureOnce(rate: rate, index: index))
      } catch {
        series.failures.append("\(error)")
      }
    }
    return series
  }
}
