/// What jetsamd answers a request with (PROTOCOL.md, *App to daemon*, the reply column): the fields of
/// `reply id=R …` after the id.
public enum AppReply: Sendable, Equatable {
  /// The request was taken: `reply id=R`.
  case done
  /// `beginBackgroundTask`: the task it opened, `reply id=R task=T`.
  case taskBegun(task: Int)
  /// `backgroundTimeRemaining`: how long the open background tasks may still run, `reply id=R seconds=S`; nil
  /// while the app is not in the background (`seconds=inf`).
  case timeRemaining(Duration?)

  /// `seconds=inf`: no limit while the app is not in the background.
  public static let unlimitedSeconds = "inf"

  /// The fields after `id=R`, in order.
  public var fields: [(AppProtocolField, String)] {
    switch self {
    case .done: []
    case .taskBegun(let task): [(.task, String(task))]
    case .timeRemaining(let remaining): [(.seconds, remaining.map(AppLine.seconds) ?? Self.unlimitedSeconds)]
    }
  }

  /// The answer to request `requestID`: `reply id=R …`.
  public func line(requestID: Int) -> AppLine {
    AppLine(.reply, [(.id, String(requestID))] + fields)
  }
}
