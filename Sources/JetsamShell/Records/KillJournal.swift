import FoundationEssentials
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// The kills decided that the state file may not hold yet, one JSON line each in `kills.jsonl` in the runtime
/// directory: written just before the SIGKILL goes out, so that who killed an app survives this daemon's death as
/// its record does. The
/// state file follows within milliseconds (``StateKeeper`` saves at once after a kill); a jetsamd killed in between
/// leaves its successor the line, and the successor records the victim for that kill (its reason, the pressure and
/// the snapshot of the decision) rather than as an unexplained SIGKILL.
///
/// One `write`, on the loop, not synced: it has to outlive the process, not the machine (a machine that loses its
/// power loses the apps as well, and a new boot adopts none). The runtime directory is tmpfs (`/run/jetsam`, kept
/// across restarts), so the write never waits on a disk: the state directory's may be frozen or slow, and a kill must
/// not wait for it. Emptied once a state save that holds every kill it lists has been written, so it stays a few
/// lines long.
final class KillJournal {
  /// One kill: the app, the launch and process it was meant for, and the policy's decision.
  struct Entry: Codable, Equatable, Sendable {
    var app: String
    var pid: Int32
    var launch: Int
    var decision: KillInFlight
  }

  /// The file's name in the state directory.
  static let fileName = "kills.jsonl"

  let path: String
  private let log: Logger
  private var file: FileDescriptor?
  /// Lines appended since this daemon started (a save records how many it covers).
  private(set) var appended = 0
  /// Whether the file may hold lines no state save has covered yet (the last daemon's, or this one's).
  private var holdsLines = true

  /// The journal in `directory` (the runtime directory), opened for appending; what an earlier daemon left in it
  /// stays until the first state save after re-adoption (read it first, with ``entriesLeft()``). A file that cannot
  /// be opened is logged: kills go out all the same, covered by the state file alone.
  init(directory: String, log: Logger) {
    path = "\(directory)/\(Self.fileName)"
    self.log = log
    do {
      // Made before the control socket is, which makes the same directory.
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      file = try FileDescriptor.open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, mode: 0o640)
    } catch {
      log.error("kill journal: \(error); a kill in flight when jetsamd dies will be recorded as a plain SIGKILL")
    }
  }

  /// Notes the kill of app `app` (launch `launch`, process `pid`) for `decision`, before its signal goes out.
  func record(app: String, pid: Int32, launch: Int, decision: KillInFlight) {
    guard let file else { return }
    var line = JSONBytes(capacity: 256 + 96 * (decision.snapshot?.count ?? 0))
    do {
      line.raw("{")
      line.key("app", first: true)
      line.string(app)
      line.key("decision")
      try line.killInFlight(decision)
      line.key("launch")
      line.number(launch)
      line.key("pid")
      line.number(pid)
      line.raw("}\n")
      try file.writeAll(line.bytes)
      appended += 1
      holdsLines = true
    } catch {
      log.error("kill journal: noting the kill of \(app): \(error)")
    }
  }

  /// A state save that was encoded when `covered` lines had been appended is written: when no line came since, the
  /// state file holds every kill the journal lists (or their records are durable), and the journal is emptied.
  func stateSaved(covering covered: Int) {
    guard let file, holdsLines, covered == appended else { return }
    if ftruncate(file.rawValue, 0) == 0 {
      holdsLines = false
    } else {
      log.error("kill journal: \(SystemError.current("ftruncate \(path)"))")
    }
  }

  /// The kills the file lists (an earlier daemon's, until the first state save), the last one of each app; lines
  /// that do not decode (a write cut short) are passed over.
  func entriesLeft() -> [String: Entry] {
    guard let data = FileManager.default.contents(atPath: path) else { return [:] }
    let decoder = JSONDecoder()
    var last: [String: Entry] = [:]
    for line in data.split(separator: UInt8(ascii: "\n")) {
      if let entry = try? decoder.decode(Entry.self, from: Data(line)) { last[entry.app] = entry }
    }
    return last
  }
}
