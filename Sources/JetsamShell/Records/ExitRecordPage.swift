import FoundationEssentials
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// One answer to `exits`: the newest records that match, read from the end of the log and its rotated
/// predecessors, so that the newest thousand of a million cost what a thousand do.
struct ExitRecordPage: Sendable {
  /// Newest first.
  var records: [ExitRecord] = []
  /// Whether older records were left out (the limit or the byte budget was reached before the oldest file's start).
  var more = false

  /// What to read.
  struct Query: Sendable {
    /// The log and its rotated predecessors, newest first, opened when asked (a rotation meanwhile moves names,
    /// not these; see ``ExitRecordLog/openForReading()``); ``read(_:)`` closes them.
    var files: [FileDescriptor]
    /// Bytes of the first file to read: what was whole and durable when asked (later records reach followers).
    var currentSize: Int64
    var app: String?
    /// Only records with a verdict (restoration or resumption).
    var judgedOnly = false
    /// Records before it end the reading: files are in time order.
    var since: Date?
    var limit: Int
    /// The most bytes of record lines an answer holds (the control socket drops a client owed over 8 MiB).
    var byteBudget = 4 << 20
  }

  /// Opens the files of `paths` that exist, in order, for a ``Query``.
  static func open(_ paths: [String]) -> [FileDescriptor] {
    paths.compactMap { try? FileDescriptor.open($0, O_RDONLY | O_NOFOLLOW) }
  }

  /// Reads newest first until `query.limit` records, the byte budget, `since`, or the oldest file's start.
  static func read(_ query: Query) throws(SystemError) -> ExitRecordPage {
    var page = ExitRecordPage()
    var bytes = 0
    try visit(query) { record, size in
      if page.records.count == query.limit || bytes + size > query.byteBudget {
        page.more = true
        return false
      }
      bytes += size
      page.records.append(record)
      return true
    }
    return page
  }

  /// Calls `body` with each record the query selects (app, `since`, verdicts; not the limit), newest first, and
  /// the size of its line, until it returns false. Records are decoded one at a time: a whole log is never in
  /// memory at once.
  static func visit(_ query: Query, _ body: (ExitRecord, Int) -> Bool) throws(SystemError) {
    let decoder = JSONDecoder()
    defer { for fd in query.files { fd.close() } }
    for (index, fd) in query.files.enumerated() {
      var st = stat()
      try systemCall("fstat") { fstat(fd.rawValue, &st) }
      let size = index == 0 ? min(Int64(st.st_size), query.currentSize) : Int64(st.st_size)
      var finished = false
      try forEachLineBackwards(fd, size: size) { line in
        // Another app's record is passed over without decoding it: an app with few records in a large log is
        // found at the cost of a byte scan per line, not a JSON decode.
        if let app = query.app, let name = appName(in: line), !name.elementsEqual(app.utf8) { return true }
        guard !line.isEmpty, let record = try? decoder.decode(ExitRecord.self, from: Data(line)) else { return true }
        if let since = query.since, (ControlRequest.rfc3339(record.time) ?? .distantPast) < since {
          finished = true
          return false
        }
        if let app = query.app, record.app != app { return true }
        if query.judgedOnly && !record.savedState.hasVerdict { return true }
        guard body(record, line.count) else {
          finished = true
          return false
        }
        return true
      }
      if finished { break }
    }
  }

  /// The last record of each app in the log at `path`, by app: the lines are scanned from the end and only each
  /// app's last one is decoded (a 16 MiB log holds ~45,000 records; jetsamd reads it at every start).
  static func lastRecordPerApp(path: String) throws(SystemError) -> [String: ExitRecord] {
    guard access(path, F_OK) == 0 else { return [:] }
    let fd = try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW)
    defer { fd.close() }
    var st = stat()
    try systemCall("fstat \(path)") { fstat(fd.rawValue, &st) }
    var last: [String: ExitRecord] = [:]
    var seen: Set<ArraySlice<UInt8>> = []
    let decoder = JSONDecoder()
    try forEachLineBackwards(fd, size: Int64(st.st_size)) { line in
      // jetsamd writes sorted keys (only the number aliveSeconds comes before app) and app names never need
      // escaping: the name sits between the first `"app":"` and the next `"`.
      if let name = appName(in: line), !seen.insert(name).inserted { return true }
      if let record = try? decoder.decode(ExitRecord.self, from: Data(line)), last[record.app] == nil {
        last[record.app] = record
      }
      return true
    }
    return last
  }

  private static let appKey = Array(#""app":""#.utf8)

  private static func appName(in line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
    var index = line.startIndex
    while index + appKey.count <= line.endIndex {
      if line[index..<(index + appKey.count)].elementsEqual(appKey) {
        let start = index + appKey.count
        guard let end = line[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return line[start..<end]
      }
      index += 1
    }
    return nil
  }

  /// Calls `body` with each line of the first `size` bytes of `fd`, last line first, until it returns false.
  private static func forEachLineBackwards(
    _ fd: FileDescriptor, size: Int64, _ body: (ArraySlice<UInt8>) -> Bool
  ) throws(SystemError) {
    let chunkSize: Int64 = 256 << 10
    var position = size
    // The bytes after `position` that do not yet start with a line's first byte.
    var tail: [UInt8] = []
    while position > 0 {
      let start = max(0, position - chunkSize)
      let data = try fd.read(at: start, capacity: Int(position - start)) + tail
      position = start
      var lineEnd = data.endIndex
      var cursor = data.endIndex
      while let newline = data[data.startIndex..<cursor].lastIndex(of: UInt8(ascii: "\n")) {
        if newline + 1 < lineEnd, !body(data[(newline + 1)..<lineEnd]) { return }
        lineEnd = newline
        cursor = newline
      }
      tail = Array(data[..<lineEnd])
    }
    if !tail.isEmpty { _ = body(tail[...]) }
  }
}
