/// Cuts a byte stream into newline-terminated lines of bounded length; no I/O of its own, so that the daemon's
/// event loop and a client's reader thread cut the same way.
///
/// A line longer than the limit is reported once, as ``Output/tooLong``, as soon as it is known to be too long,
/// and its bytes up to and including the next newline are dropped as they arrive, never held. A final line that
/// never gets its newline is never delivered.
public struct LineFramer: Sendable {
  /// What appended bytes produced.
  public enum Output: Equatable, Sendable {
    /// A complete line, without its newline (possibly empty; a `\r` before the newline stays in it).
    case line([UInt8])
    /// A line longer than the limit was skipped.
    case tooLong
  }

  /// The longest line, in bytes, counting its newline.
  public let maxBytes: Int
  private var pending: [UInt8] = []
  // Set from the moment a line is known to be too long until its newline arrives.
  private var discarding = false

  /// A framer for lines of at most `maxBytes` bytes, newline included.
  public init(maxBytes: Int = AppLine.maxBytes) {
    precondition(maxBytes > 0, "a line needs room for its newline")
    self.maxBytes = maxBytes
  }

  /// Takes the next bytes read and returns what they complete, in order.
  public mutating func append(_ bytes: some Sequence<UInt8>) -> [Output] {
    var outputs: [Output] = []
    for byte in bytes {
      if byte == UInt8(ascii: "\n") {
        if !discarding { outputs.append(.line(pending)) }
        discarding = false
        pending.removeAll(keepingCapacity: true)
      } else if !discarding {
        pending.append(byte)
        // With its newline still to come, a line holding maxBytes bytes already is too long.
        if pending.count >= maxBytes {
          discarding = true
          pending.removeAll(keepingCapacity: true)
          outputs.append(.tooLong)
        }
      }
    }
    return outputs
  }
}
