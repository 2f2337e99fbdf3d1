import Foundation
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import Synchronization

/// What a long life costs: jetsamd started on a record log of ``records`` exit records, its start-up, `exits`
/// pages, and another client's `status` while the largest page is read.
struct HistoryResult: Sendable {
  var records = 0
  var logBytes: Int64 = 0
  /// From the daemon's start to its first answer (ms).
  var startUp: Double = 0
  /// `exits` with the default limit (1,000 newest), and with the most (100,000, capped at 4 MiB), round trips (ms).
  var defaultPage = Distribution([])
  var largestPage = Distribution([])
  var largestPageRecords = 0
  var largestPageMore = false
  /// Another client's status round trips while largest pages are read (ms).
  var statusDuringRead = Distribution([])
  var rss: Double = 0
}

enum HistoryBench {
  /// The records written before the daemon starts.
  static let records = 100_000
  /// Apps the records are spread over (the default page holds records of all of them).
  static let apps = 200
  static let pageRounds = 10

  static func measure(binaries: Binaries, root: String) throws -> HistoryResult {
    var result = HistoryResult()
    let directory = root + "/history"
    let stateDirectory = directory + "/state"
    try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
    result.logBytes = try writeLog(stateDirectory + "/exits.jsonl")
    result.records = records
    let started = MonotonicTime.now()
    let daemon = try JetsamdInstance(
      binaries: binaries, directory: directory, cgroupName: "jetsam-bench-history-\(getpid())",
      config: "{ controlGroup: null }")
    result.startUp = MonotonicTime.milliseconds(from: started, to: MonotonicTime.now())
    defer { _ = daemon.stop() }

    let client = try daemon.client()
    var defaultPage: [Double] = []
    var largestPage: [Double] = []
    for _ in 0..<pageRounds {
      defaultPage.append(try timed(client, ControlRequest(verb: .exits)).milliseconds)
    }
    // A second client asks for status in a loop while the first reads the largest pages.
    let status = StatusProbe(client: try daemon.client())
    let statusThread = Thread { status.run() }
    statusThread.start()
    var largest = ControlRequest(verb: .exits)
    largest.limit = 100_000
    for _ in 0..<pageRounds {
      let (milliseconds, response) = try timed(client, largest)
      largestPage.append(milliseconds)
      result.largestPageRecords = response.exits?.count ?? 0
      result.largestPageMore = response.more == true
    }
    result.statusDuringRead = Distribution(status.stop())
    result.defaultPage = Distribution(defaultPage)
    result.largestPage = Distribution(largestPage)
    result.rss = Double(ProcessStats.residentBytes(daemon.pid) ?? 0) / 1_048_576
    return result
  }

  private static func timed(_ client: ControlClient, _ request: ControlRequest) throws -> (
    milliseconds: Double, response: ControlResponse
  ) {
    let sent = MonotonicTime.now()
    let response = try client.send(request)
    guard response.ok else { throw BenchError("\(request.verb) refused: \(response.error?.message ?? "?")") }
    return (MonotonicTime.milliseconds(from: sent, to: MonotonicTime.now()), response)
  }

  /// Writes `records` records spread over `apps` apps, oldest first, as jetsamd writes them; returns the bytes.
  private static func writeLog(_ path: String) throws -> Int64 {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var text = Data()
    let start = Date().addingTimeInterval(-Double(records))
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    for index in 0..<records {
      let app = "history-\(index % apps)"
      let record = ExitRecord(
        time: formatter.string(from: start.addingTimeInterval(Double(index))), app: app,
        pid: Int32(10_000 + index % 30_000), launch: index / apps + 1,
        cause: ExitCause(reason: .memoryPressure, terminationReason: "JETSAM memory-pressure", signal: 9),
        lifecycle: ExitLifecycle(state: .suspended, aliveSeconds: 60, stateSeconds: 30),
        usage: ExitResourceUsage(memoryBytes: 120 << 20, peakMemoryBytes: 130 << 20, cpuSeconds: 1.5),
        pressure: ExitPressure(level: .urgent, availableBytes: 200 << 20),
        savedState: ExitSavedState(summary: "page=\(index % 17)", digest: String(index, radix: 16)))
      text.append(try encoder.encode(record))
      text.append(0x0A)
    }
    try text.write(to: URL(fileURLWithPath: path))
    return Int64(text.count)
  }
}

/// A client's `status` round trips, in a loop on a thread of its own until stopped.
private final class StatusProbe: @unchecked Sendable {
  private let client: ControlClient
  private let running = Atomic(true)
  private let finished = DispatchSemaphore(value: 0)
  private var times: [Double] = []

  init(client: ControlClient) { self.client = client }

  func run() {
    defer { finished.signal() }
    guard let line = try? client.encode(ControlRequest(verb: .status)) else { return }
    while running.load(ordering: .relaxed) {
      let sent = MonotonicTime.now()
      guard (try? client.send(line: line)) != nil else { return }
      times.append(MonotonicTime.milliseconds(from: sent, to: MonotonicTime.now()))
      usleep(1_000)
    }
  }

  /// Stops the loop and returns its round trips (ms); only after `run` has returned are they read.
  func stop() -> [Double] {
    running.store(false, ordering: .relaxed)
    finished.wait()
    return times
  }
}
