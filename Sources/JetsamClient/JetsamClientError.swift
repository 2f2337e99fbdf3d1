import JetsamWire

/// What can go wrong between an app and jetsamd.
public enum JetsamClientError: Error, Equatable, Sendable, CustomStringConvertible {
  /// `JETSAM_FD` is not set: the program was not launched by jetsamd.
  case notLaunchedByJetsam
  /// `JETSAM_FD` (or the descriptor given) is not an open socket.
  case invalidDescriptor(String)
  /// The daemon closed the channel (it stopped, or it is about to end this process).
  case channelClosed
  /// A write to the channel failed; `errno` is the C error number.
  case writeFailed(errno: Int32)
  /// A line would be longer than the protocol's 4096 bytes.
  case lineTooLong(word: String)
  /// The daemon did not answer a request within the reply timeout.
  case replyTimedOut(request: String)
  /// The daemon's answer lacked a field or could not be read.
  case malformedReply(String)
  /// The daemon sent a line this client could not take apart.
  case malformedLine(String)
  /// The daemon refused a line: `error code=CODE message=TEXT`.
  case daemonError(code: String, message: String)

  private static let channelVariable = AppEnvironmentVariable.channelDescriptor.rawValue

  /// A sentence for a log or an error message.
  public var description: String {
    switch self {
    case .notLaunchedByJetsam:
      "\(Self.channelVariable) is not set: this program was not launched by jetsamd. Run it as a jetsamd app, "
        + "which hands it its channel to the daemon (see PROTOCOL.md)."
    case .invalidDescriptor(let detail): "\(Self.channelVariable) does not name a usable channel: \(detail)"
    case .channelClosed: "the channel to jetsamd is closed"
    case .writeFailed(let errno): "writing to the channel to jetsamd failed (errno \(errno))"
    case .lineTooLong(let word): "a \(word) line would exceed the protocol's 4096 bytes"
    case .replyTimedOut(let request): "jetsamd did not answer \(request) in time"
    case .malformedReply(let line): "jetsamd's reply could not be read: \(line)"
    case .malformedLine(let line): "jetsamd sent a line that could not be read: \(line)"
    case .daemonError(let code, let message): "jetsamd refused a line: \(code): \(message)"
    }
  }
}
