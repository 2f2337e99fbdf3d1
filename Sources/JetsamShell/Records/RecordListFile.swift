import FoundationEssentials
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning

/// A small file of exit records kept beside the log, one JSON object per line, replaced whole and durably:
/// `last-exits.jsonl` (every app's last exit, written at each rotation) and `unwritten-exits.jsonl` (records a
/// stopping jetsamd could not write to a full disk, written to the log at the next start).
enum RecordListFile {
  /// Replaces the file at `path` with `records`, durably.
  static func write(_ records: [ExitRecord], to path: String) throws(SystemError) {
    let encoder = JSONEncoder.stable
    var bytes: [UInt8] = []
    for record in records {
      do {
        bytes += try encoder.encode(record)
      } catch {
        throw SystemError(code: EINVAL, "encode exit record for \(record.app): \(error)")
      }
      bytes.append(UInt8(ascii: "\n"))
    }
    try replaceFile(at: path, with: bytes, durable: true)
  }

  /// The records of the file at `path` (none when it does not exist; damaged lines skipped).
  static func read(_ path: String) throws(SystemError) -> [ExitRecord] {
    try ExitRecordLog.read(path: path).records
  }
}
