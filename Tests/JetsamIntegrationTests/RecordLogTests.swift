import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// The record log over a long life and a full disk: no record torn, lost or reported before it is whole on disk;
/// rotation keeps every app's launch numbers; `exits` pages newest first.
@Suite(
  "Record log: full disk, stop, rotation", .serialized, .enabled(if: isRoot, "needs root: tmpfs mounts, cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct RecordLogTests {
  /// A small tmpfs mounted over the daemon's state directory, to fill up.
  final class SmallDisk {
    let path: String
    private var filler: Int32 = -1

    init(at path: String, size: String) throws {
      self.path = path
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      let result = try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", path])
      guard result.status == 0 else { throw TestKitError("mount tmpfs on \(path): \(result.stderr)") }
    }

    /// Writes a file until the filesystem is full.
    func fill() {
      filler = open(path + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
      let block = [UInt8](repeating: 0xAA, count: 4096)
      // Whole blocks, then single bytes: nothing a record could use is left.
      for size in [4096, 1] {
        while block.withUnsafeBytes({ write(filler, $0.baseAddress, size) }) == size {}
      }
    }

    /// Frees the space again.
    func free() {
      close(filler)
      filler = -1
      unlink(path + "/filler")
    }

    /// Unmounts lazily (jetsamd may still hold files open).
    func remove() {
      if filler >= 0 { close(filler) }
      umount2(path, Int32(MNT_DETACH))
    }
  }

  /// A small ext4 filesystem on a loop device, mounted over the daemon's state directory, to freeze (FIFREEZE):
  /// every write to it then blocks in the kernel until it is thawed, as on a hung or very slow disk. (Sendable:
  /// its one changing flag is behind the lock, for the safety timer's thaw.)
  final class FreezableDisk: @unchecked Sendable {
    let path: String
    private let image: String
    private let lock = NSLock()
    private var frozen = false

    /// Why the test cannot run here, or nil.
    static var missingTools: String? {
      let tools = ["/usr/sbin/mkfs.ext4", "/usr/sbin/fsfreeze", "/usr/sbin/losetup"]
      if let missing = tools.first(where: { access($0, X_OK) != 0 }) {
        return "needs \(missing) (e2fsprogs, util-linux)"
      }
      return access("/dev/loop-control", F_OK) == 0 ? nil : "needs loop devices (/dev/loop-control)"
    }

    init(at path: String, image: String) throws {
      self.path = path
      self.image = image
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      guard FileManager.default.createFile(atPath: image, contents: nil) else { throw TestKitError("create \(image)") }
      guard truncate(image, 32 << 20) == 0 else { throw TestKitError("truncate \(image)") }
      for (command, arguments) in [
        ("/usr/sbin/mkfs.ext4", ["-q", "-F", image]), ("/bin/mount", ["-o", "loop", image, path]),
      ] {
        let result = try runCommand(command, arguments)
        guard result.status == 0 else { throw TestKitError("\(command) \(arguments): \(result.stderr)") }
      }
      chmod(path, 0o700)
    }

    func freeze() throws {
      let result = try runCommand("/usr/sbin/fsfreeze", ["--freeze", path])
      guard result.status == 0 else { throw TestKitError("fsfreeze --freeze \(path): \(result.stderr)") }
      lock.withLock { frozen = true }
    }

    /// Thaws it (once, whoever comes first: the test, or its safety timer).
    func thaw() {
      let wasFrozen = lock.withLock { () -> Bool in
        defer { frozen = false }
        return frozen
      }
      guard wasFrozen else { return }
      _ = try? runCommand("/usr/sbin/fsfreeze", ["--unfreeze", path])
    }

    /// Thaws and unmounts lazily (jetsamd may still hold files open; the loop device goes with the last of them).
    func remove() {
      thaw()
      umount2(path, Int32(MNT_DETACH))
      unlink(image)
    }
  }

  /// Every line of the log at `path` is one whole record; returns them.
  static func wholeRecords(_ path: String) throws -> [ExitRecord] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.isEmpty || text.hasSuffix("\n"), "the log ends with a whole line")
    return try text.split(separator: "\n").map { line in
      do {
        return try JSONDecoder().decode(ExitRecord.self, from: Data(line.utf8))
      } catch {
        throw TestKitError("a torn or damaged line in the log: \(line.prefix(200))")
      }
    }
  }

  @Test("a full disk: records wait and are written whole once space is back; a stop leaves the rest for the next start")
  func fullDisk() throws {
    let daemon = try DaemonHarness(
      config: "{ suspend: { backgroundGrace: null }, records: { stopGrace: \"1s\" } }")
    defer { daemon.stop() }
    daemon.crash()
    let disk = try SmallDisk(at: daemon.stateDirectory, size: "2m")
    defer { disk.remove() }
    try daemon.jetsamd.startAgain()
    // Three to kill while the disk is full, and more than a page of records (a full tmpfs still takes writes into
    // the last page of the log) to end at the stop.
    let names = ["a", "b", "c"] + (1...14).map { "late\($0)" }
    for name in names { try daemon.launch(name, ["idle"], options: ["--background"]) }
    let follower = try ExitFollower(socket: daemon.socket)
    defer { follower.stop() }
    try daemon.waitUntil("the follower's first answer") { follower.answered }

    disk.fill()
    for name in ["a", "b", "c"] { #expect(try daemon.ctl(["kill", name]).status == 0) }
    try daemon.waitUntil("a, b and c gone") {
      let apps = try daemon.apps()
      return ["a", "b", "c"].allSatisfy { apps[$0]?.status.pid == nil }
    }
    usleep(300_000)
    #expect(follower.records.isEmpty, "nothing is reported before it is on disk")
    #expect(try Self.wholeRecords(daemon.recordLogPath).isEmpty)

    disk.free()
    try daemon.waitUntil("the three records written once space is back") {
      try Self.wholeRecords(daemon.recordLogPath).count == 3
    }
    #expect(Set(try Self.wholeRecords(daemon.recordLogPath).map(\.app)) == ["a", "b", "c"])
    try daemon.waitUntil("the three records reported") { follower.records.count == 3 }

    // Stopped while the disk is full: the late apps end; what does not fit waits out the grace, then goes to the
    // runtime directory (another filesystem).
    disk.fill()
    let leftovers = daemon.directory + "/run/unwritten-exits.jsonl"
    #expect(daemon.jetsamd.terminate() == 1, "jetsamd says it stopped with records not in the log")
    let left = try RecordFiles.records(leftovers)
    let logged = try Self.wholeRecords(daemon.recordLogPath)
    #expect(!left.isEmpty)
    #expect((logged + left).map(\.app).sorted() == names.sorted(), "each death once, in the log or left over")
    #expect(left.allSatisfy { $0.cause.reason == .normalAppExit })

    disk.free()
    try daemon.jetsamd.startAgain()
    // Written first, on the record thread: the start does not wait for them.
    try daemon.waitUntil("the leftovers written") { access(leftovers, F_OK) != 0 }
    let all = try Self.wholeRecords(daemon.recordLogPath)
    #expect(all.map(\.app).sorted() == names.sorted(), "every death has exactly one record")
    #expect(try daemon.ctlJSON([ExitRecord].self, ["exits"]).count == names.count)
  }

  @Test(
    "a frozen disk holds up no one: while records wait for it, kills go out and requests are answered",
    .enabled(if: FreezableDisk.missingTools == nil, "\(FreezableDisk.missingTools ?? "")"))
  func frozenDisk() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    daemon.crash()
    let disk = try FreezableDisk(at: daemon.stateDirectory, image: daemon.directory + "/state.ext4")
    defer { disk.remove() }
    try daemon.jetsamd.startAgain()
    for name in ["a", "b", "c"] { try daemon.launch(name, ["idle"], options: ["--background"]) }
    let pids = try daemon.apps().compactMapValues(\.status.pid)
    let follower = try ExitFollower(socket: daemon.socket)
    defer { follower.stop() }
    try daemon.waitUntil("the follower's first answer") { follower.answered }

    try disk.freeze()
    // Whatever happens below, the disk thaws: a daemon blocked on it would otherwise hold the test for ever. (Late
    // enough that twelve jetsamctl runs on a loaded or emulated machine come well before it.)
    let thawAfter = 60 * TestTiming.slowdown
    DispatchQueue.global().asyncAfter(deadline: .now() + thawAfter) { disk.thaw() }
    let started = Date()
    for name in ["a", "b"] {
      #expect(try daemon.ctl(["kill", name]).status == 0)
      try daemon.waitUntil("\(name) gone") { kill(pids[name]!, 0) != 0 }
    }
    for _ in 0..<5 {
      #expect(try daemon.ctl(["status"]).status == 0)
      let apps = try daemon.apps()
      #expect(apps["a"]?.status.pid == nil && apps["c"]?.status.pid == pids["c"])
      usleep(100_000)
    }
    let answeredWithin = Date().timeIntervalSince(started)
    #expect(
      answeredWithin < thawAfter / 2, "jetsamd answered and killed while its disk was frozen (\(answeredWithin) s)")
    #expect(follower.records.isEmpty, "nothing is reported before it is on disk")

    disk.thaw()
    try daemon.waitUntil("both records reported once the disk thawed") { follower.records.count == 2 }
    #expect(follower.records.map(\.app) == ["a", "b"], "in the order of the deaths")
    #expect(try Self.wholeRecords(daemon.recordLogPath).map(\.app) == ["a", "b"])
  }

  @Test("rotation: exits pages newest first across files; launch numbers survive the old files' deletion")
  func rotation() throws {
    let daemon = try DaemonHarness(config: "{ records: { rotateSize: \"1M\", keep: 2 } }")
    defer { daemon.stop() }
    try daemon.launch("old", ["exit", "0"])
    _ = try daemon.waitForRecords(1)
    try daemon.launch("old", ["exit", "0"])
    let first = try daemon.waitForRecords(2)
    #expect(first.map(\.launch) == [1, 2])
    // Fill the log to just under 1 MiB with other apps' records, as earlier runs would have.
    daemon.crash()
    let handle = try #require(FileHandle(forWritingAtPath: daemon.recordLogPath))
    handle.seekToEndOfFile()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var size = Int(handle.offsetInFile)
    var index = 0
    while true {
      var record = first[0]
      record.app = "filler-\(index % 10)"
      record.pid = Int32(10_000 + index)
      var line = try encoder.encode(record)
      line.append(UInt8(ascii: "\n"))
      if size + line.count > (1 << 20) - 2_000 { break }
      handle.write(line)
      size += line.count
      index += 1
    }
    try handle.close()
    try daemon.jetsamd.startAgain()

    // A few real exits take the log past 1 MiB: it rotates.
    let both = { try RecordFiles.records(daemon.recordLogPath + ".1") + RecordFiles.records(daemon.recordLogPath) }
    for round in 1...10 where access(daemon.recordLogPath + ".1", F_OK) != 0 {
      try daemon.launch("new", ["exit", "0"])
      try daemon.waitUntil("new's record \(round)") { try both().filter { $0.app == "new" }.count == round }
    }
    #expect(access(daemon.recordLogPath + ".1", F_OK) == 0, "the log rotated")
    let rotated = try RecordFiles.records(daemon.recordLogPath + ".1")
    #expect(rotated.first?.app == "old")
    let current = try daemon.recordsOnDisk()
    #expect(current.map(\.app) == ["new"], "the record that did not fit starts the new log")

    let newest = try daemon.ctlJSON([ExitRecord].self, ["exits", "--limit", "3"])
    let expected = (rotated + current).suffix(3).reversed().map(\.pid)
    #expect(newest.map(\.pid) == Array(expected), "newest first, across the rotation")
    let more = try daemon.ctl(["exits", "--limit", "3"])
    #expect(more.stderr.contains("older records left out"))
    #expect(try daemon.ctlJSON([ExitRecord].self, ["exits", "--app", "old"]).map(\.launch) == [2, 1])

    // journald keeps the archive: the rotated file may go. The last exits survive beside the log.
    daemon.crash()
    unlink(daemon.recordLogPath + ".1")
    try daemon.jetsamd.startAgain()
    try daemon.launch("old", ["exit", "0"])
    try daemon.waitUntil("old's third record") { try daemon.recordsOnDisk().contains { $0.app == "old" } }
    let third = try #require(try daemon.recordsOnDisk().last { $0.app == "old" })
    #expect(third.launch == 3, "the launch number goes on from the last exit kept at the rotation")
  }
}

/// Reads a records file straight from disk (none when it does not exist).
enum RecordFiles {
  static func records(_ path: String) throws -> [ExitRecord] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(ExitRecord.self, from: Data($0.utf8)) }
  }
}
