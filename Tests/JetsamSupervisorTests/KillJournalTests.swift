import Foundation
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamSpawning
import Testing

@testable import JetsamShell

/// The kills noted before their signals: written by hand as `JSONEncoder` would, read back by a successor.
@Suite("Kill journal")
struct KillJournalTests {
  static let snapshot = [
    SnapshotEntry(
      name: "mail \"β\"\n", pid: 10, band: .idle, state: .suspended, memoryBytes: 123_456, secondsInBand: 2.5),
    SnapshotEntry(name: "maps", pid: 11, band: .foreground, state: .foreground, secondsInBand: 3),
  ]

  static let decisions: [KillInFlight] = [
    KillInFlight(kill: .jetsam, level: .critical, availableBytes: 1 << 30, snapshot: snapshot),
    KillInFlight(kill: .jetsam, level: .urgent, availableBytes: 0, snapshot: []),
    KillInFlight(kill: .user(.memoryPressure), level: .normal, availableBytes: 5),
    KillInFlight(kill: .watchdog(.didEnterBackground, seconds: 1.5), level: .warning, availableBytes: 7),
    KillInFlight(kill: .backgroundTaskTimeout(["upload"]), level: .normal, availableBytes: 0),
  ]

  @Test("a decision by hand is JSONEncoder's, byte for byte", arguments: decisions)
  func sameBytes(decision: KillInFlight) throws {
    var bytes = JSONBytes()
    try bytes.killInFlight(decision)
    #expect(
      String(decoding: bytes.bytes, as: UTF8.self)
        == String(decoding: try JSONEncoder.stable.encode(decision), as: UTF8.self))
  }

  @Test("a successor reads each app's last kill, past a line cut short")
  func readBack() throws {
    let directory = NSTemporaryDirectory() + "jetsam-kills-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let journal = KillJournal(directory: directory, log: Logger(threshold: .error))
    journal.record(app: "mail", pid: 10, launch: 3, decision: Self.decisions[2])
    journal.record(app: "mail", pid: 10, launch: 3, decision: Self.decisions[0])
    journal.record(app: "maps", pid: 11, launch: 1, decision: Self.decisions[3])
    // A jetsamd killed in the middle of a write.
    let file = try FileDescriptor.open(journal.path, O_WRONLY | O_APPEND)
    try file.writeText("{\"app\":\"news\",\"decision\":{\"avail")
    file.close()
    let successor = KillJournal(directory: directory, log: Logger(threshold: .error))
    #expect(
      successor.entriesLeft() == [
        "mail": KillJournal.Entry(app: "mail", pid: 10, launch: 3, decision: Self.decisions[0]),
        "maps": KillJournal.Entry(app: "maps", pid: 11, launch: 1, decision: Self.decisions[3]),
      ])
  }
}
