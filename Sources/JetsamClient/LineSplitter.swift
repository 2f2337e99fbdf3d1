/// Cuts a byte stream into `\n`-terminated lines, dropping any longer than the protocol allows.
struct LineSplitter {
  /// What one chunk of input produced.
  enum Output: Equatable {
    /// A complete line, without its `\n`.
    case line(String)
    /// A line longer than the limit was dropped.
    case tooLong
  }

  /// The largest line, in bytes, counting its `\n`.
  let maximumLength: Int
  private var pending: [UInt8] = []
  // After an overlong line, everything up to the next `\n` is dropped.
  private var discarding = false

  /// A splitter for lines of at most `maximumLength` bytes, `\n` included.
  init(maximumLength: Int = ProtocolLine.maximumLength) {
    self.maximumLength = maximumLength
  }

  /// Feeds bytes in and returns the lines they complete.
  ///
  /// - Parameter bytes: The next bytes read from the stream.
  /// - Returns: Complete lines and overlong-line notices, in order.
  mutating func feed(_ bytes: some Sequence<UInt8>) -> [Output] {
    var outputs: [Output] = []
    for byte in bytes {
      if byte == UInt8(ascii: "\n") {
        if discarding {
          discarding = false
        } else {
          outputs.append(.line(String(decoding: pending, as: UTF8.self)))
        }
        pending.removeAll(keepingCapacity: true)
      } else if !discarding {
        pending.append(byte)
        if pending.count >= maximumLength {
          pending.removeAll(keepingCapacity: true)
          discarding = true
          outputs.append(.tooLong)
        }
      }
    }
    return outputs
  }
}
