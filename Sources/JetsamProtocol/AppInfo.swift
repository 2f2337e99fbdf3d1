import JetsamCore

/// One app in `ps` and in the lifecycle verbs' answers: the policy's status of the app, the one value the view is
/// made from, and what the daemon measured of it as it answered. Nothing is copied out of the status: the JSON is
/// written from it (``AppInfo/encode(to:)``), with the keys clients always read.
///
/// A client's `AppInfo` holds what the wire carries: its status has the app's name, state, pid, launch, band,
/// digests, verdicts, summary and flags; what the view does not show (when the app entered its state, its saves'
/// times, its kill in flight, its launch metrics, how old its state was on a resumption) is left unset or zero.
public struct AppInfo: Sendable, Equatable {
  /// The app as the policy sees it.
  public var status: AppStatus
  /// What the daemon measured of the app as it answered.
  public var measured: AppMeasurements

  /// The view of the app `status` describes, with what the daemon `measured` of it.
  public init(status: AppStatus, measured: AppMeasurements) {
    self.status = status
    self.measured = measured
  }
}
