import FoundationEssentials
import Glibc
import JetsamPlatform
import JetsamProtocol
import JetsamSpawning

/// Where diagnostics are kept: one JSON file each in `<stateDirectory>/diagnostics`, written whole and fsync'd
/// before anything refers to them, at most ``limit`` of them (the oldest go first). Thread-safe in the sense that
/// it holds no state: every call works on the directory alone (writes run on a helper thread, reads on another).
struct DiagnosticStore: Sendable {
  let directory: String
  /// The most diagnostics kept.
  var limit = 1_000

  init(stateDirectory: String) { directory = stateDirectory + "/diagnostics" }

  /// Writes `record` durably, then removes the oldest past the limit.
  func write(_ record: DiagnosticRecord) throws(SystemError) {
    if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw SystemError.current("mkdir \(directory)") }
    let bytes: Data
    do { bytes = try JSONEncoder.stable.encode(record) } catch {
      throw SystemError(code: EINVAL, "encoding diagnostic \(record.id): \(error)")
    }
    try replaceFile(at: path(of: record.id), with: bytes, durable: true)
    let names = fileNames()
    for name in names.prefix(max(0, names.count - limit)) { unlink(directory + "/" + name) }
  }

  /// Every diagnostic kept, oldest first, of `app` if given, taken at or after `since` if given. Files that cannot
  /// be read or decoded are skipped.
  func read(app: String? = nil, since: Date? = nil) -> [DiagnosticRecord] {
    let decoder = JSONDecoder()
    return fileNames().compactMap { name in
      guard let text = try? readTextFile(directory + "/" + name, capacity: 1 << 20),
        let record = try? decoder.decode(DiagnosticRecord.self, from: Data(text.utf8))
      else { return nil }
      if let app, record.app != app { return nil }
      if let since, let time = ControlRequest.rfc3339(record.time), time < since { return nil }
      return record
    }
  }

  private func path(of id: String) -> String { directory + "/" + id + ".json" }

  /// The diagnostics' file names, oldest first (their ids start with the time).
  private func fileNames() -> [String] {
    ((try? directoryEntries(directory)) ?? []).map(\.name).filter { $0.hasSuffix(".json") }.sorted()
  }
}
