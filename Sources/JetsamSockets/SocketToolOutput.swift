import FoundationEssentials
import JetsamCore

/// What `jetsam-sockets` prints on its standard output, one JSON object a line, and how jetsamd reads it back:
/// `{"socket":{"protocol":"tcp","local":…,"remote":…,"state":…,"pid":…}}` for each socket destroyed, then
/// `{"problem":"…"}` if something went wrong. One definition for both ends of the pipe.
public enum SocketToolOutput {
  private struct Line: Codable {
    var socket: DefunctedSocket?
    var problem: String?
  }

  /// The lines that say `outcome`, each ending in a newline.
  public static func text(of outcome: NetworkSocketDestruction.Outcome) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var lines = outcome.sockets.map { Line(socket: $0) }
    if let problem = outcome.problem { lines.append(Line(problem: problem)) }
    return lines.compactMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) + "\n" }.joined()
  }

  /// What the tool said (a line that is not one of its lines, such as a runtime's crash message, is a problem).
  public static func outcome(reading text: String) -> NetworkSocketDestruction.Outcome {
    var outcome = NetworkSocketDestruction.Outcome()
    var problems: [String] = []
    let decoder = JSONDecoder()
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
      guard let parsed = try? decoder.decode(Line.self, from: Data(line.utf8)) else {
        problems.append("jetsam-sockets said: \(line.prefix(200))")
        continue
      }
      if let socket = parsed.socket { outcome.sockets.append(socket) }
      if let problem = parsed.problem { problems.append(problem) }
    }
    if !problems.isEmpty { outcome.problem = problems.joined(separator: "; ") }
    return outcome
  }
}
