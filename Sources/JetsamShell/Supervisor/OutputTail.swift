import Glibc

/// The last bytes of a stream, at most `capacity` of them: a ring that each read goes straight into (`readv` into
/// its two free segments), so that keeping the tail costs no copy and no compaction however much is read.
struct OutputTail {
  let capacity: Int
  /// Allocated at the first read.
  private var ring: [UInt8] = []
  /// Where the next byte goes; once the ring is full, also where its oldest byte is.
  private var next = 0
  /// The bytes kept (at most `capacity`).
  private(set) var count = 0

  init(capacity: Int) { self.capacity = capacity }

  /// One read of at most `limit` bytes (and at most `capacity`) from `fd`, kept in place of the oldest: what the
  /// read returned (-1 with errno set, 0 at the end of file).
  mutating func read(from fd: Int32, atMost limit: Int) -> Int {
    let length = min(limit, capacity)
    guard length > 0 else { return 0 }
    if ring.isEmpty { ring = [UInt8](repeating: 0, count: capacity) }
    let first = min(length, capacity - next)
    let count = ring.withUnsafeMutableBytes { bytes in
      var segments = [
        iovec(iov_base: bytes.baseAddress! + next, iov_len: first),
        iovec(iov_base: bytes.baseAddress!, iov_len: length - first),
      ]
      return readv(fd, &segments, length > first ? 2 : 1)
    }
    if count > 0 {
      next = (next + count) % capacity
      self.count = min(capacity, self.count + count)
    }
    return count
  }

  /// The bytes kept, oldest first.
  var bytes: [UInt8] { count < capacity ? Array(ring[..<count]) : Array(ring[next...]) + ring[..<next] }
}
