import JetsamValues

/// A lifecycle event waiting for the app's acknowledgement.
///
/// An app handles its events one after another, as UIKit calls the delegate in order: an event's watchdog starts
/// only when every earlier watched event has been acknowledged, so a hang is blamed on the handler it is in,
/// and each handler gets its whole allowance.
struct PendingAck: Sendable, Equatable {
  var kind: AppEventKind
  /// How long the handler may take, from when it could start.
  var allowance: Duration
  /// A command hook answers for the event, so it is watched whether or not the app speaks the protocol.
  var answeredByHook: Bool
  /// No longer watched: sent before the app was stopped (a stopped app cannot answer), or while it is on its way
  /// out. A late acknowledgement is still taken.
  var waived = false
  /// When its handler could start (the earlier events were acknowledged); nil while it waits behind them, or is
  /// not watched.
  var since: Instant?

  /// When the watchdog fires; nil while it is not running.
  var deadline: Instant? { since?.advanced(by: allowance) }
}
