import Foundation
import Glibc
import JetsamCore
import JetsamProtocol
import JetsamTestTraits
import Synchronization
import Testing

@testable import JetsamConfig
@testable import JetsamShell

@Suite("Exit record log", .offThePool)
struct ExitRecordLogTests {
  /// A record of now: a log whose first record is older than `records.rotateAge` (7 days) rotates at the next append,
  /// so a fixed date would make these tests depend on the day they run.
  static func record(_ app: String, pid: Int32) -> ExitRecord {
    ExitRecord(
      time: AppSupervisor.timestamp(), app: app, pid: pid, launch: 1,
      cause: ExitCause(reason: .memoryPressure, terminationReason: "JETSAM memory-pressure", signal: 9),
      lifecycle: ExitLifecycle(state: .suspended, aliveSeconds: 1, stateSeconds: 0.5),
      pressure: ExitPressure(level: .urgent, availableBytes: 1 << 20))
  }

  private func temporaryPath() -> String {
    NSTemporaryDirectory() + "exits-\(UUID().uuidString).jsonl"
  }

  @Test("records written are read back in order")
  func roundTrip() throws {
    let path = temporaryPath()
    defer { unlink(path) }
    let log = try ExitRecordLog(path: path)
    try log.append(Self.record("a", pid: 1))
    try log.append(Self.record("b", pid: 2))
    let contents = try ExitRecordLog.read(path: path)
    #expect(contents.records.map(\.app) == ["a", "b"])
    #expect(contents.skippedLines.isEmpty)
    #expect(log.written == 2)
  }

  @Test("a partial last line from a crash is cut off at the next open, never merged with the next record")
  func truncatedLastLine() throws {
    let path = temporaryPath()
    defer { unlink(path) }
    do {
      let log = try ExitRecordLog(path: path)
      try log.append(Self.record("a", pid: 1))
    }
    // A crash in the middle of a write leaves half a line.
    let handle = try #require(FileHandle(forWritingAtPath: path))
    handle.seekToEndOfFile()
    handle.write(Data(#"{"app":"half","pid":"#.utf8))
    try handle.close()
    #expect(try ExitRecordLog.read(path: path).records.map(\.app) == ["a"])

    let reopened = try ExitRecordLog(path: path)
    try reopened.append(Self.record("c", pid: 3))
    let contents = try ExitRecordLog.read(path: path)
    #expect(contents.records.map(\.app) == ["a", "c"])
    #expect(contents.skippedLines.isEmpty)
  }

  private func temporaryDirectory() throws -> String {
    let directory = NSTemporaryDirectory() + "exits-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    return directory
  }

  /// Writes records of apps `app-N` (N = index % apps) dated `time` straight into `path`, as jetsamd writes them,
  /// for a log that is large or old without thousands of real exits: `count` of them, or as many as fit in
  /// `bytes`. Returns how many.
  @discardableResult
  static func fill(
    _ path: String, count: Int = .max, bytes: Int = .max, apps: Int, time: String, firstPid: Int32 = 1000
  ) throws -> Int {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var text = Data()
    var written = 0
    while written < count {
      var record = Self.record("app-\(written % apps)", pid: firstPid + Int32(written))
      record.time = time
      record.launch = written / apps + 1
      var line = try encoder.encode(record)
      line.append(UInt8(ascii: "\n"))
      if text.count + line.count > bytes { break }
      text += line
      written += 1
    }
    try text.write(to: URL(fileURLWithPath: path))
    return written
  }

  static var now: String { Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }

  @Test("the log rotates before a record would pass rotateSize; keep bounds the old files; last exits are kept")
  func rotatesBySize() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/exits.jsonl"
    var rotation = RecordsConfig()
    rotation.rotateSize = ByteSize(bytes: 1 << 20)
    rotation.keep = 2
    let filled = try Self.fill(path, bytes: 1 << 20, apps: 7, time: Self.now)
    let warnings = Mutex<[String]>([])
    let log = try ExitRecordLog(path: path, rotation: rotation) { message in warnings.withLock { $0.append(message) } }
    let before = log.size()
    #expect(before > (1 << 20) - 1_000, "the filled log is just under 1 MiB (\(before))")

    // Longer than any line of the fill, so it cannot fit in what the fill left.
    let long = String(repeating: "x", count: 400)
    try log.append(Self.record("first-after-" + long, pid: 1)) { [Self.record("remembered", pid: 7)] }
    #expect(try ExitRecordLog.read(path: path).records.map(\.pid) == [1])
    #expect(try ExitRecordLog.read(path: path + ".1").records.count == filled)
    #expect(try RecordListFile.read(log.lastExitsPath).map(\.app) == ["remembered"])
    // Two more rotations (a full log found at start each time): the oldest file goes, two stay.
    for round in 0..<2 {
      try Self.fill(path, bytes: 1 << 20, apps: 7, time: Self.now, firstPid: Int32(10_000 * (round + 2)))
      let next = try ExitRecordLog(path: path, rotation: rotation) { message in
        warnings.withLock { $0.append(message) }
      }
      try next.append(Self.record("round-\(round)-" + long, pid: 2))
    }
    #expect(try ExitRecordLog.read(path: path + ".2").records.first?.pid == 20_000)
    #expect(access(path + ".3", F_OK) != 0, "keep: 2")
    #expect(access(path + ".2", F_OK) == 0)
    #expect(log.files == [path, path + ".1", path + ".2"])
    #expect(warnings.withLock { $0.isEmpty }, "\(warnings.withLock { $0 })")
  }

  @Test("the log rotates once its oldest record is rotateAge old")
  func rotatesByAge() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/exits.jsonl"
    var rotation = RecordsConfig()
    rotation.rotateAge = ConfigDuration(.seconds(3600))
    try Self.fill(path, count: 3, apps: 3, time: "2026-01-01T00:00:00.000Z")
    let log = try ExitRecordLog(path: path, rotation: rotation)
    try log.append(Self.record("new", pid: 1))
    try log.append(Self.record("newer", pid: 2))
    #expect(try ExitRecordLog.read(path: path).records.map(\.app) == ["new", "newer"], "young records stay together")
    #expect(try ExitRecordLog.read(path: path + ".1").records.count == 3)
  }

  @Test("a page reads the log jetsamd writes, whatever happened to its name")
  func pageReadsTheLogItself() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/exits.jsonl"
    let log = try ExitRecordLog(path: path)
    try log.append(Self.record("a", pid: 1))
    try log.append(Self.record("b", pid: 2))
    // Someone moves the log away (or deletes it): the rotated file must not be read as if it were the log.
    try Self.fill(path + ".1", count: 3, apps: 1, time: Self.now)
    #expect(rename(path, directory + "/moved.jsonl") == 0)
    let page = try ExitRecordPage.read(
      ExitRecordPage.Query(files: try log.openForReading(), currentSize: log.size(), limit: 10))
    #expect(page.records.map(\.pid) == [2, 1, 1002, 1001, 1000])
  }

  @Test("exits pages read newest first across rotated files, by app, since, limit and byte budget")
  func pagesNewestFirst() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/exits.jsonl"
    try Self.fill(path + ".1", count: 5_000, apps: 2, time: "2026-11-01T00:00:00.000Z")
    try Self.fill(path, count: 10, apps: 2, time: "2026-11-30T00:00:00.000Z", firstPid: 9_000)
    let size = Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int)
    func page(app: String? = nil, since: String? = nil, limit: Int, budget: Int = 4 << 20) throws -> ExitRecordPage {
      var query = ExitRecordPage.Query(
        files: ExitRecordPage.open([path, path + ".1", path + ".2"]), currentSize: size, app: app,
        since: since.flatMap { ControlRequest.rfc3339($0) }, limit: limit)
      query.byteBudget = budget
      return try ExitRecordPage.read(query)
    }
    let newest = try page(limit: 12)
    #expect(newest.records.map(\.pid) == Array((9_000..<9_010).reversed()) + [5_999, 5_998])
    #expect(newest.more)
    let all = try page(limit: 100_000)
    #expect(all.records.count == 5_010 && !all.more)
    #expect(all.records.map(\.pid) == all.records.map(\.pid).sorted(by: >))
    let odd = try page(app: "app-1", limit: 100_000)
    #expect(odd.records.count == 2_505 && odd.records.allSatisfy { $0.app == "app-1" })
    let recent = try page(since: "2026-11-15T00:00:00Z", limit: 100_000)
    #expect(recent.records.count == 10 && !recent.more)
    let small = try page(limit: 100_000, budget: 10_000)
    #expect(small.more && !small.records.isEmpty && small.records.count < 40)
    // Only the bytes that were whole when asked: a record appended later is not in the page.
    let handle = try #require(FileHandle(forWritingAtPath: path))
    handle.seekToEndOfFile()
    handle.write(Data(#"{"app":"late"#.utf8))
    try handle.close()
    #expect(try page(limit: 1).records.first?.pid == 9_009)
  }
}
