import Foundation

/// The demo app's state: what it saves at didEnterBackground and restores after an exit.
struct DemoState: Codable, Equatable, Sendable {
  /// Counts up every 100 ms while the app is active.
  var count = 0
  /// A small document the app appends a line to every second while active.
  var document: [String] = []
  /// Which fetch of its news feed the app shows: a fetch is current for `--feed-valid-for` seconds, and a
  /// return to the foreground after that must fetch again (the first fetch is 0).
  var feed = 0

  init() {}

  /// Reads a saved state; files from before the feed existed have none.
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    count = try container.decode(Int.self, forKey: .count)
    document = try container.decode([String].self, forKey: .document)
    feed = try container.decodeIfPresent(Int.self, forKey: .feed) ?? 0
  }

  /// Advances by one tick of 100 ms: the counter, and every tenth tick a line of the document.
  mutating func tick() {
    count += 1
    if count % 10 == 0 {
      document.append("line \(document.count + 1), written at count \(count)")
    }
  }

  /// The canonical bytes of the state: what is saved, and what the digest is taken of.
  var encoded: Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    // Encoding plain fields cannot fail.
    return (try? encoder.encode(self)) ?? Data()
  }

  /// A digest of the state: FNV-1a (64 bits) of ``encoded``, in hex.
  var digest: String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in encoded {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// A short summary for jetsam to hand back at the next launch.
  var summary: String { "count=\(count)" }

  /// The state file in a directory.
  static func file(in directory: String) -> URL {
    URL(fileURLWithPath: directory).appendingPathComponent("jetsam-demo-app.state.json")
  }

  /// Writes the state to its file, atomically (a kill mid-write leaves the previous save).
  func save(in directory: String) throws {
    try encoded.write(to: Self.file(in: directory), options: .atomic)
  }

  /// Reads the state saved in a directory.
  ///
  /// - Throws: When there is no state file or it cannot be read.
  static func load(from directory: String) throws -> DemoState {
    try JSONDecoder().decode(DemoState.self, from: Data(contentsOf: file(in: directory)))
  }
}
