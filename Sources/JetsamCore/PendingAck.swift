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
  /// The watchdog is held while a debugger is attached (iOS disables it then): the tracer seen at the last look,
  /// and when to look again. Once it has gone, the allowance runs again from then.
  var heldBy: (tracer: Int32, lookAgainAt: Instant)?
  /// The deadline came and whether a debugger is attached was asked (`checkTracer`): no deadline until the answer.
  var askedForTracer = false

  /// When the watchdog fires (or looks again for a debugger); nil while it is not running.
  var deadline: Instant? {
    if askedForTracer { return nil }
    if let heldBy { return heldBy.lookAgainAt }
    return since?.advanced(by: allowance)
  }

  static func == (a: PendingAck, b: PendingAck) -> Bool {
    a.kind == b.kind && a.allowance == b.allowance && a.answeredByHook == b.answeredByHook && a.waived == b.waived
      && a.since == b.since && a.heldBy?.tracer == b.heldBy?.tracer
      && a.heldBy?.lookAgainAt == b.heldBy?.lookAgainAt && a.askedForTracer == b.askedForTracer
  }
}
