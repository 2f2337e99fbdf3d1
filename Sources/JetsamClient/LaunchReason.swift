import Foundation
import JetsamWire

/// Why the app is starting: a clean start, or a start after an earlier exit whose state it may restore.
public enum LaunchReason: Equatable, Sendable {
  /// No earlier exit is known: start from scratch.
  case fresh
  /// The app ran before and exited; it should restore what it saved.
  ///
  /// - Parameters:
  ///   - previousReason: Why the previous process ended, e.g. `memoryPressure`, `appWatchdog`, `abnormal`.
  ///   - previousState: The lifecycle state it ended in, e.g. `suspended`, `background`, `foreground`.
  ///   - time: When it ended, if the daemon said and the time could be read.
  case afterExit(previousReason: String, previousState: String, time: Date?)

  /// Whether this launch follows an earlier exit.
  public var isAfterExit: Bool {
    if case .afterExit = self { return true }
    return false
  }

  /// Reads a launch reason from its protocol fields.
  ///
  /// - Parameters:
  ///   - reason: `fresh` or `afterExit`; anything else counts as `fresh`.
  ///   - previousReason: The previous exit's reason.
  ///   - previousState: The previous exit's state.
  ///   - time: The previous exit's time, ISO 8601 (`2026-11-29T14:35:35.447Z`).
  init(reason: String?, previousReason: String?, previousState: String?, time: String?) {
    guard reason == LaunchReasonName.afterExit.rawValue else {
      self = .fresh
      return
    }
    self = .afterExit(
      previousReason: previousReason ?? "", previousState: previousState ?? "",
      time: time.flatMap(Self.parseTime))
  }

  /// Parses an ISO 8601 time with or without fractional seconds.
  static func parseTime(_ text: String) -> Date? {
    if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
      return date
    }
    return try? Date(text, strategy: Date.ISO8601FormatStyle())
  }
}
