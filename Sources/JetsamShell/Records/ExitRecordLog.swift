import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamSpawning
import Synchronization

/// The append-only exit record log: one JSON object per line, each fsync'd before it is reported anywhere, rotated
/// by size and age (``RecordsConfig``).
///
/// Only whole lines ever stay in the file: a write or sync that fails (a full disk) is cut back to the last
/// durable record before the error is reported, so a retried record never lands after a torn fragment. A crash
/// can at worst leave a partial last line, which the next open cuts off.
///
/// One thread at a time writes (``append(line:at:)``, ``rotate(keeping:)``: the daemon's record thread, see
/// ``RecordWriter``); any thread may read the log's size and open it for reading meanwhile. The lock guards only
/// which file is current and how much of it is durable, never a write or a sync, so a reader never waits on the
/// disk.
public final class ExitRecordLog: Sendable {
  /// The log file's path.
  public let path: String
  private let rotation: RecordsConfig
  /// Told when a rotation could not be done (the log then grows on; appending goes on). Called on the writing
  /// thread.
  private let warn: @Sendable (String) -> Void
  private let tail: Mutex<Tail>

  /// The current file and how much of it is durable.
  private struct Tail {
    var fd: FileDescriptor
    /// Bytes of whole, durable records: where the next record starts.
    var end: Int64
    /// When the current file's first record was written (rotation by age); nil while it is empty.
    var firstRecordDate: Date?
    /// How many records this process has written.
    var written = 0
  }

  /// Where the last exits of every app are kept across rotations (`last-exits.jsonl` beside the log).
  public var lastExitsPath: String { ExitRecordLog.lastExitsPath(beside: path) }

  /// Opens (creating if needed) the log at `path`, cutting off a partial last line left by a crash.
  public init(
    path: String, rotation: RecordsConfig = RecordsConfig(), warn: @escaping @Sendable (String) -> Void = { _ in }
  ) throws(SystemError) {
    self.path = path
    self.rotation = rotation
    self.warn = warn
    let existed = access(path, F_OK) == 0
    let fd = try FileDescriptor.open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW, mode: 0o640)
    var opened = Tail(fd: fd, end: 0)
    do {
      if existed {
        opened.end = try ExitRecordLog.cutPartialLastLine(fd, path: path)
        opened.firstRecordDate = ExitRecordLog.firstRecordDate(fd)
      } else {
        // A new file's directory entry must be durable too, or a crash could lose the whole log.
        try syncDirectory(of: path)
      }
    } catch {
      fd.close()
      throw error
    }
    tail = Mutex(opened)
  }

  deinit { tail.withLock { $0.fd.close() } }

  /// How many records this process has written.
  public var written: Int { tail.withLock { $0.written } }

  /// The line `record` takes in the log, newline included.
  public static func line(for record: ExitRecord) throws(SystemError) -> Data {
    let encoder = JSONEncoder.stable
    var line: Data
    do {
      line = try encoder.encode(record)
    } catch {
      throw SystemError(code: EINVAL, "encode exit record for \(record.app): \(error)")
    }
    line.append(UInt8(ascii: "\n"))
    return line
  }

  /// Appends one record and makes it durable, rotating first when due: all of it on the calling thread, for a
  /// caller that owns the log alone. `lastExits` is asked only when the log rotates.
  public func append(_ record: ExitRecord, lastExits: () -> [ExitRecord] = { [] }) throws(SystemError) {
    let line = try ExitRecordLog.line(for: record)
    let now = Date()
    if isRotationDue(adding: line.count, now: now) { rotate(keeping: lastExits()) }
    try append(line: line, at: now)
  }

  /// Appends one line (``line(for:)``) and makes it durable (write + fdatasync) before returning.
  ///
  /// - Throws: ``SystemError`` when the line could not be made durable; the file then ends with the previous
  ///   record, as before the call.
  public func append(line: Data, at now: Date = Date()) throws(SystemError) {
    // Only this thread changes the tail, so it stays as read while the lock is let go for the write.
    let (fd, end) = tail.withLock { ($0.fd, $0.end) }
    do {
      try fd.writeAll(line)
      try systemCall("fdatasync \(path)") { fdatasync(fd.rawValue) }
    } catch {
      // Whatever part of the line reached the file goes: cutting a file back needs no free space.
      _ = ftruncate(fd.rawValue, off_t(end))
      throw error
    }
    tail.withLock { tail in
      tail.end += Int64(line.count)
      if tail.firstRecordDate == nil { tail.firstRecordDate = now }
      tail.written += 1
    }
  }

  /// The log's size in bytes now. Every record below it is complete and durable: only one thread appends, and
  /// only whole lines stay.
  public func size() -> Int64 { tail.withLock { $0.end } }

  /// The paths of the log and its rotated predecessors, newest first: `exits.jsonl`, `exits.jsonl.1`, …
  public var files: [String] { [path] + (1...rotation.keep).map { "\(path).\($0)" } }

  /// The log and its rotated predecessors, newest first, opened for reading (an ``ExitRecordPage`` query closes
  /// them): the log itself through a duplicate of the descriptor it is written by, so that it is this log
  /// whatever a rotation or anyone else does to the names meanwhile; the others by name, where they exist.
  func openForReading() throws(SystemError) -> [FileDescriptor] {
    let current = try tail.withLock { tail throws(SystemError) in
      try systemCall("dup \(path)") { fcntl(tail.fd.rawValue, F_DUPFD_CLOEXEC, 0) }
    }
    return [FileDescriptor(rawValue: current)] + ExitRecordPage.open(Array(files.dropFirst()))
  }

  // MARK: Rotation

  /// Whether the log is to be rotated before `bytes` more are appended: by size, or by its first record's age.
  public func isRotationDue(adding bytes: Int, now: Date = Date()) -> Bool {
    let (end, firstRecordDate) = tail.withLock { ($0.end, $0.firstRecordDate) }
    guard end > 0 else { return false }
    if end + Int64(bytes) > rotation.rotateSize.bytes { return true }
    guard let firstRecordDate else { return false }
    let age = Double(rotation.rotateAge.duration.components.seconds)
    return now.timeIntervalSince(firstRecordDate) >= age
  }

  /// Moves `exits.jsonl` to `exits.jsonl.1` (and each older one up, the oldest out) and starts a new file.
  /// `lastExits` (the last exit of every app known) is written first, so that no launch reason is lost with the
  /// files. A rotation that fails is warned of, and the log grows on.
  public func rotate(keeping lastExits: [ExitRecord]) {
    do {
      try RecordListFile.write(lastExits, to: lastExitsPath)
      let oldest = "\(path).\(rotation.keep)"
      if access(oldest, F_OK) == 0 { try systemCall("unlink \(oldest)") { unlink(oldest) } }
      for index in stride(from: rotation.keep - 1, through: 1, by: -1) where access("\(path).\(index)", F_OK) == 0 {
        try systemCall("rename \(path).\(index)") { rename("\(path).\(index)", "\(path).\(index + 1)") }
      }
      let next = try FileDescriptor.open(
        path + ".new", O_RDWR | O_APPEND | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o640)
      do {
        try systemCall("rename \(path)") { rename(path, "\(path).1") }
        try systemCall("rename \(path).new") { rename(path + ".new", path) }
        try syncDirectory(of: path)
      } catch {
        next.close()
        throw error
      }
      let previous = tail.withLock { tail in
        defer {
          tail.fd = next
          tail.end = 0
          tail.firstRecordDate = nil
        }
        return tail.fd
      }
      previous.close()
    } catch {
      warn("rotating \(path): \(error); the log grows on")
    }
  }

  // MARK: Reading

  /// The result of reading a log: the records, and the line numbers that could not be parsed.
  public struct Contents: Sendable {
    public var records: [ExitRecord]
    /// 1-based line numbers skipped as unparsable (damage; a crash's partial last line is cut at the next open).
    public var skippedLines: [Int]
  }

  /// Reads every complete record of the log at `path`, oldest first; a damaged line is skipped, never fatal.
  public static func read(path: String) throws(SystemError) -> Contents {
    guard access(path, F_OK) == 0 else { return Contents(records: [], skippedLines: []) }
    let text = try readTextFile(path)
    let decoder = JSONDecoder()
    var records: [ExitRecord] = []
    var skipped: [Int] = []
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      if line.isEmpty { continue }
      if let record = try? decoder.decode(ExitRecord.self, from: Data(line.utf8)) {
        records.append(record)
      } else {
        skipped.append(index + 1)
      }
    }
    return Contents(records: records, skippedLines: skipped)
  }

  /// `last-exits.jsonl` beside the log at `path`.
  public static func lastExitsPath(beside path: String) -> String { directoryPart(of: path) + "/last-exits.jsonl" }

  /// Cuts the file back to its last newline (a crash's partial line) and returns the size left.
  private static func cutPartialLastLine(_ fd: FileDescriptor, path: String) throws(SystemError) -> Int64 {
    var st = stat()
    try systemCall("fstat \(path)") { fstat(fd.rawValue, &st) }
    var size = Int64(st.st_size)
    var cut = size
    while cut > 0 {
      let start = max(0, cut - 65_536)
      let chunk = try fd.read(at: start, capacity: Int(cut - start))
      if let newline = chunk.lastIndex(of: UInt8(ascii: "\n")) {
        cut = start + Int64(newline) + 1
        break
      }
      cut = start
    }
    if cut < size {
      try systemCall("ftruncate \(path)") { ftruncate(fd.rawValue, off_t(cut)) }
      try systemCall("fdatasync \(path)") { fdatasync(fd.rawValue) }
      size = cut
    }
    return size
  }

  /// The time of the file's first record, if it can be read.
  private static func firstRecordDate(_ fd: FileDescriptor) -> Date? {
    guard let head = try? fd.read(at: 0, capacity: 65_536), let newline = head.firstIndex(of: UInt8(ascii: "\n")),
      let record = try? JSONDecoder().decode(ExitRecord.self, from: Data(head[..<newline]))
    else { return nil }
    return ControlRequest.rfc3339(record.time)
  }
}

/// fsyncs the directory containing `path`, so that a newly created file's name survives a crash.
func syncDirectory(of path: String) throws(SystemError) {
  let directory = directoryPart(of: path)
  let dfd = try FileDescriptor.open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY)
  defer { dfd.close() }
  try systemCall("fsync \(directory)") { fsync(dfd.rawValue) }
}
