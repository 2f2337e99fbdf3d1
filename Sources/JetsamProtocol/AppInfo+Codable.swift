import JetsamCore
import JetsamValues

/// An app's JSON in `ps`, `launch` and the lifecycle verbs (PROTOCOL-CONTROL.md): flat keys written from its
/// status and measurements. What only a running app has (its pid, digests, verdicts, whether it speaks the
/// protocol, the flags of its suspension) is written only while it runs; counts and flags only when set.
/// ``ControlResponse/fastJSON()`` writes the same bytes by hand.
extension AppInfo: Codable {
  enum CodingKeys: String, CodingKey {
    case name, pid, state, lifecycleState, band, memoryBytes, memoryLimitBytes, stateSeconds, launch, restoration,
      previousDigest, restoredDigest, savedDigest, resumption, resumedDigest, continuedWhileSuspended,
      speaksProtocol, stateSummary, suspendIncomplete, stopping
  }

  public func encode(to encoder: any Encoder) throws {
    var app = encoder.container(keyedBy: CodingKeys.self)
    let running = status.state.isRunning
    try app.encode(status.name, forKey: .name)
    if running { try app.encodeIfPresent(status.pid, forKey: .pid) }
    try app.encode(status.state.coarseName, forKey: .state)
    try app.encode(status.state, forKey: .lifecycleState)
    try app.encode(status.band, forKey: .band)
    try app.encode(measured.memoryBytes, forKey: .memoryBytes)
    try app.encodeIfPresent(measured.memoryLimitBytes, forKey: .memoryLimitBytes)
    try app.encode(measured.stateSeconds, forKey: .stateSeconds)
    try app.encode(status.launch, forKey: .launch)
    if running {
      try app.encodeIfPresent(status.restoration, forKey: .restoration)
      try app.encodeIfPresent(status.previousDigest, forKey: .previousDigest)
      try app.encodeIfPresent(status.restoredDigest, forKey: .restoredDigest)
      try app.encodeIfPresent(status.savedDigest, forKey: .savedDigest)
      try app.encodeIfPresent(status.resumption?.verdict, forKey: .resumption)
      try app.encodeIfPresent(status.resumption?.resumedDigest, forKey: .resumedDigest)
      if status.continuedByOthers > 0 { try app.encode(status.continuedByOthers, forKey: .continuedWhileSuspended) }
      try app.encode(status.speaksProtocol, forKey: .speaksProtocol)
      if status.suspendIncomplete { try app.encode(true, forKey: .suspendIncomplete) }
    }
    try app.encodeIfPresent(status.summary, forKey: .stateSummary)
    if measured.stopping { try app.encode(true, forKey: .stopping) }
  }

  /// The app as a client reads it: the status holds what the keys carry. The band on the wire is the effective
  /// one, so the status's floor is that band where it lifts the state's own; a resumption's saved digest is the
  /// one the app last saved, its age and validity zero.
  public init(from decoder: any Decoder) throws {
    let app = try decoder.container(keyedBy: CodingKeys.self)
    let state = try app.decode(LifecycleState.self, forKey: .lifecycleState)
    let band = try app.decode(Band.self, forKey: .band)
    let never = Instant(nanoseconds: 0)
    var status = AppStatus(
      name: try app.decode(String.self, forKey: .name), state: state,
      bandFloor: band > Band.natural(for: state) ? band : nil, pid: try app.decodeIfPresent(Int32.self, forKey: .pid),
      launch: try app.decode(Int.self, forKey: .launch), stateEnteredAt: never, bandEnteredAt: never, spawnedAt: nil)
    status.previousDigest = try app.decodeIfPresent(String.self, forKey: .previousDigest)
    status.restoredDigest = try app.decodeIfPresent(String.self, forKey: .restoredDigest)
    status.savedDigest = try app.decodeIfPresent(String.self, forKey: .savedDigest)
    status.restorationLost = try app.decodeIfPresent(RestorationVerdict.self, forKey: .restoration) == .lost
    if let verdict = try app.decodeIfPresent(ResumptionVerdict.self, forKey: .resumption) {
      status.resumption = ResumptionJudgement(
        verdict: verdict, savedDigest: status.savedDigest ?? "",
        resumedDigest: try app.decodeIfPresent(String.self, forKey: .resumedDigest) ?? "", stateAgeSeconds: 0,
        validForSeconds: 0)
    }
    status.continuedByOthers = try app.decodeIfPresent(Int.self, forKey: .continuedWhileSuspended) ?? 0
    status.speaksProtocol = try app.decodeIfPresent(Bool.self, forKey: .speaksProtocol) ?? false
    status.summary = try app.decodeIfPresent(String.self, forKey: .stateSummary)
    status.suspendIncomplete = try app.decodeIfPresent(Bool.self, forKey: .suspendIncomplete) ?? false
    self.init(
      status: status,
      measured: AppMeasurements(
        memoryBytes: try app.decode(Int64.self, forKey: .memoryBytes),
        memoryLimitBytes: try app.decodeIfPresent(Int64.self, forKey: .memoryLimitBytes),
        stateSeconds: try app.decode(Double.self, forKey: .stateSeconds),
        stopping: try app.decodeIfPresent(Bool.self, forKey: .stopping) ?? false))
  }
}
