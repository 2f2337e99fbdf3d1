import Foundation

/// A lab's `trace.json` (Chrome's Trace Event format, JSON object form) as the tests read it: its events, and the
/// process id of each named track.
public struct TraceFile {
  /// Every event, as JSON objects.
  public let events: [[String: Any]]

  /// Parses the trace's bytes; throws when they are not a JSON object with a `traceEvents` array.
  public init(_ data: Data) throws {
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
      let events = object["traceEvents"] as? [[String: Any]]
    else { throw TestKitError("not a trace: no traceEvents array") }
    self.events = events
  }

  /// Reads and parses the trace at `path`.
  public init(contentsOf path: String) throws {
    try self.init(Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// Each track's process id by its name (the `process_name` metadata events).
  public var processIDs: [String: Int] {
    var pids: [String: Int] = [:]
    for event in events where event["name"] as? String == "process_name" {
      pids[(event["args"] as? [String: Any])?["name"] as? String ?? ""] = event["pid"] as? Int
    }
    return pids
  }
}
