/// How much a memory counter moves when jetsam-testapp runs `alloc N`: a fixed start-up charge plus a charge
/// per 1 MiB chunk (the data, malloc's header page and the page tables: about 1 MiB + 6 KiB on x86-64).
///
/// The bench uses it to tell the allocator at which chunk (`--mark-at`) the counter reaches a threshold, so that
/// the allocator stamps the crossing itself. It is measured on the device counter (``calibrated(…)``) and used
/// for the host's MemAvailable too, which falls by the same pages.
struct AllocatorModel: Sendable, CustomStringConvertible {
  /// What an `alloc 0 --hold` adds (its stack, libc data, the process's own page tables).
  var baseBytes: Int64
  /// What each further MiB adds.
  var bytesPerChunk: Int64

  static let mebibyte: Int64 = 1 << 20

  /// The number of chunks after which a counter now at `current` (without the allocator) has risen to `level`
  /// (rounded up: the mark goes out right after the memset that crosses, a fraction of a millisecond late,
  /// rather than up to one chunk period early).
  func chunksToReach(_ level: Int64, from current: Int64) -> Int {
    let needed = level - current - baseBytes
    guard needed > 0 else { return 0 }
    return Int((needed + bytesPerChunk - 1) / bytesPerChunk)
  }

  /// What an `alloc chunks --hold` process charges once done.
  func charge(chunks: Int) -> Int64 { baseBytes + Int64(chunks) * bytesPerChunk }

  var description: String {
    String(
      format: "%.0f KiB + %.2f KiB per MiB chunk", Double(baseBytes) / 1024,
      Double(bytesPerChunk - AllocatorModel.mebibyte) / 1024)
  }
}
