/// Output waiting for a peer, in chunks of whole lines, so that what it costs in memory is what it holds.
///
/// One growing buffer would double its capacity as it grows (and copy itself, leaving the old copy to the
/// allocator) and move what is left at every partial write: for hundreds of peers that do not read, the daemon's
/// memory would reach twice what they are owed. Here small lines are gathered in chunks of ``chunkBytes``
/// (allocated once, at that size, and reused by the allocator as they are freed), a larger line is a chunk of its
/// own size, and each chunk is freed as soon as it is written.
struct OutputQueue {
  /// The capacity of a chunk of small lines; one send(2) writes at most one chunk.
  static let chunkBytes = 16 * 1024

  private var chunks: [[UInt8]] = []
  /// The first chunk not wholly written, and how much of it is.
  private var first = 0
  private var offset = 0
  /// Bytes not written yet.
  private(set) var count = 0
  /// Whether the bytes written so far end inside a line (the peer has its beginning).
  private(set) var midLine = false

  var isEmpty: Bool { count == 0 }

  /// Queues `line` and its newline.
  mutating func append(line: some Collection<UInt8>) {
    let size = line.count + 1
    count += size
    // Judged by the bytes held, not the capacity: the allocator may round a chunk's capacity up past
    // `chunkBytes`, and a chunk must never be written in more than one send of `chunkBytes`.
    if let last = chunks.indices.last, last >= first, chunks[last].count + size <= Self.chunkBytes {
      chunks[last] += line
      chunks[last].append(UInt8(ascii: "\n"))
      return
    }
    var chunk: [UInt8] = []
    chunk.reserveCapacity(max(size, Self.chunkBytes))
    chunk += line
    chunk.append(UInt8(ascii: "\n"))
    chunks.append(chunk)
  }

  /// Calls `body` with the next bytes to write (at most one chunk's); nil when none wait.
  func withNextBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
    guard first < chunks.count else { return nil }
    return chunks[first].withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
  }

  /// Marks `n` of the next bytes written.
  mutating func consume(_ n: Int) {
    guard n > 0, first < chunks.count else { return }
    offset += n
    count -= n
    midLine = chunks[first][offset - 1] != UInt8(ascii: "\n")
    guard offset == chunks[first].count else { return }
    chunks[first] = []
    first += 1
    offset = 0
    if first == chunks.count {
      chunks.removeAll(keepingCapacity: chunks.count <= 64)
      first = 0
    } else if first >= 64 && first * 2 >= chunks.count {
      // Written chunks are already freed; this drops their empty slots, rarely.
      chunks.removeFirst(first)
      first = 0
    }
  }

  /// Drops what waits but the rest of a line the peer has the beginning of.
  mutating func discardAllButCurrentLine() {
    guard midLine, first < chunks.count else { return removeAll() }
    let chunk = chunks[first]
    let end = chunk[offset...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? chunk.count
    let rest = Array(chunk[offset..<end])
    chunks = [rest]
    first = 0
    offset = 0
    count = rest.count
  }

  mutating func removeAll() {
    chunks = []
    first = 0
    offset = 0
    count = 0
  }
}
