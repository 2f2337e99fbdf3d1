import FoundationEssentials
import Glibc
import JetsamCore

/// The append-only exit record log: one JSON object per line, each fsync'd before it is reported anywhere.
///
/// A crash can at worst leave a partial last line; readers skip it and the writer starts the next record on
/// a fresh line, so no complete record is ever lost or merged with a fragment.
public final class ExitRecordLog {
  /// The log file's path.
  public let path: String
  private let fd: FileDescriptor
  private let encoder: JSONEncoder
  /// How many records this process has written.
  public private(set) var written = 0

  /// Opens (creating if needed) the log at `path`, repairing a partial last line left by a crash.
  public init(path: String) throws(SystemError) {
    self.path = path
    let existed = access(path, F_OK) == 0
    fd = try FileDescriptor.open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW, mode: 0o640)
    encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if existed {
      try terminatePartialLastLine()
    } else {
      // A new file's directory entry must be durable too, or a crash could lose the whole log.
      try syncDirectory(of: path)
    }
  }

  deinit { fd.close() }

  /// Appends one record and makes it durable (write + fdatasync) before returning.
  public func append(_ record: ExitRecord) throws(SystemError) {
    var line: Data
    do {
      line = try encoder.encode(record)
    } catch {
      throw SystemError(code: EINVAL, "encode exit record for \(record.app): \(error)")
    }
    line.append(UInt8(ascii: "\n"))
    try fd.writeAll(line)
    try systemCall("fdatasync \(path)") { fdatasync(fd.rawValue) }
    written += 1
  }

  /// The log's size in bytes now. Every record below it is complete and durable: only this writer appends, and
  /// only whole lines.
  public func size() throws(SystemError) -> Int64 {
    var st = stat()
    try systemCall("fstat \(path)") { fstat(fd.rawValue, &st) }
    return Int64(st.st_size)
  }

  /// The result of reading a log: the records, and the line numbers that could not be parsed.
  public struct Contents: Sendable {
    public var records: [ExitRecord]
    /// 1-based line numbers skipped as unparsable (a crash's partial last line, or damage).
    public var skippedLines: [Int]
  }

  /// Reads every complete record of the log at `path` (only its first `limit` bytes, if given); a partial or
  /// damaged line is skipped, never fatal.
  public static func read(path: String, limit: Int64? = nil) throws(SystemError) -> Contents {
    guard access(path, F_OK) == 0 else { return Contents(records: [], skippedLines: []) }
    var text = try readTextFile(path)
    if let limit, limit < text.utf8.count {
      text = String(decoding: text.utf8.prefix(Int(limit)), as: UTF8.self)
    }
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

  private func terminatePartialLastLine() throws(SystemError) {
    var st = stat()
    try systemCall("fstat \(path)") { fstat(fd.rawValue, &st) }
    guard st.st_size > 0 else { return }
    let last = try fd.read(at: Int64(st.st_size) - 1, capacity: 1)
    if last != [UInt8(ascii: "\n")] {
      try fd.writeAll([UInt8(ascii: "\n")])
      try systemCall("fdatasync \(path)") { fdatasync(fd.rawValue) }
    }
  }
}

/// fsyncs the directory containing `path`, so that a newly created file's name survives a crash.
func syncDirectory(of path: String) throws(SystemError) {
  let directory = directoryPart(of: path)
  let dfd = try FileDescriptor.open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY)
  defer { dfd.close() }
  try systemCall("fsync \(directory)") { fsync(dfd.rawValue) }
}
