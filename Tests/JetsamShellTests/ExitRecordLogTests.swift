import Foundation
import Glibc
import JetsamCore
import Testing

@testable import JetsamShell

@Suite("Exit record log")
struct ExitRecordLogTests {
  static func record(_ app: String, pid: Int32) -> ExitRecord {
    ExitRecord(
      time: "2026-11-29T14:00:00.000Z", app: app, pid: pid, launch: 1, reason: .memoryPressure,
      terminationReason: "JETSAM memory-pressure", state: "suspended", signal: 9, exitCode: nil, aliveSeconds: 1,
      stateSeconds: 0.5, pressureLevel: .urgent, deviceAvailableBytes: 1 << 20)
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

  @Test("a partial last line from a crash is skipped on read and never merged with the next record")
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
    #expect(contents.skippedLines == [2])
  }
}
