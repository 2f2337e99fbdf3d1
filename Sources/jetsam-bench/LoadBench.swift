import Foundation
import JetsamControlClient
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
  var idleKills: VictimSeries
  var loadedKills: VictimSeries
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
    result.idleRSS = Double(ProcessStats.residentBytes(jetsamd.daemon.pid) ?? 0) / 1_048_576

    let load = try ControlLoad(socket: jetsamd.daemon.socketPath, slowConnections: slowConnections)
    defer { load.stop() }
    result.slowTried = load.triedSlow
    result.slowHeld = load.heldSlow
    let firehoseStart = load.firehoseCount
    let start = MonotonicTime.now()
    result.loadedStatus = try roundTrips(client)
    result.loadedKills = try killSeries(jetsamd, rate: rate, count: kills)
    result.firehosePerSecond = Double(load.firehoseCount - firehoseStart) / MonotonicTime.seconds(since: start)
    result.loadedRSS = Double(ProcessStats.residentBytes(jetsamd.daemon.pid) ?? 0) / 1_048_576
    return result
  }

  private static func roundTrips(_ client: ControlClient) throws -> Distribution {
    let line = try client.encode(ControlRequest(verb: .status))
    var times: [Double] = []
    for _ in 0..<roundTrips {
      let sent = MonotonicTime.now()
      guard try client.send(line: line).ok else { throw BenchError("status refused") }
      times.append(MonotonicTime.milliseconds(from: sent, to: MonotonicTime.now()))
    }
    return Distribution(times)
  }

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
