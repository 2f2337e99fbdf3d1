import JetsamValues
import JetsamWire

/// An app's side of the channel as its own: whether it speaks the protocol, its background stints, its grace after
/// a busy stretch, and the verdicts on the state it restored and resumed with.
extension TrackedApp {
  /// Background stints and suspension, as seen by acknowledgements and background tasks.
  mutating func noteStint(from: LifecycleState, to: LifecycleState, at: Instant) {
    if to == .background {
      process?.backgroundStint = BackgroundStint(since: at)
    } else if from == .background {
      process?.backgroundStint = nil
    }
    if to == .suspended {
      // A stopped app cannot answer: its pending deadlines are dropped, not missed.
      process?.channel.waiveAll()
    }
  }

  /// In `auto` mode the first valid message shows the app speaks the protocol; `hello` says so in any mode but
  /// `never`.
  mutating func noteSpeaking(_ message: AppMessage, at: Instant) {
    guard process?.channel.speaksProtocol == false else { return }
    // A digest the app's digest command printed speaks for the program, not the program itself.
    if case .stateDigest = message, settings.commands.digest != nil { return }
    switch settings.acknowledgements {
    case .never: return
    case .always: if message != .hello { return }
    case .auto: break
    }
    process?.channel.speaksProtocol = true
    // Events sent before the app spoke are watched from now on, the first of them at once.
    startWatchdog(at: at)
  }

  /// Once a busy background app is idle again, its background grace starts over.
  mutating func suspendIfIdle(grace: Duration?, at: Instant) {
    guard state == .background, process?.backgroundStint?.suspendWhenIdle == true, process?.isBusy == false,
      let grace
    else { return }
    process?.backgroundStint?.suspendWhenIdle = false
    process?.graceDeadline = at.advanced(by: grace)
  }

  /// The action that tells of the app's verdict, once it has one.
  func restorationJudged() -> [PolicyAction] {
    guard let restoration = process?.restoration, let verdict = restoration.verdict, verdict != .pending else {
      return []
    }
    return [
      .restorationJudged(
        app: name, launch: launch, verdict: verdict, savedDigest: restoration.previousDigest,
        restoredDigest: restoration.restoredDigest)
    ]
  }

  /// Judges what a returning app showed against what it saved in this launch, if it said how long that stays
  /// current. The first stale verdict of a launch is kept (a bug seen stays seen); later ones are still told.
  mutating func judgeResumption(_ resumed: String, at: Instant) -> [PolicyAction] {
    guard let restoration = process?.restoration, let saved = restoration.savedDigest,
      let savedAt = restoration.savedAt, let validFor = restoration.savedValidFor
    else { return [] }
    let judgement = ResumptionJudgement.judge(
      saved: saved, savedAt: savedAt, validFor: validFor, resumed: resumed, at: at)
    if restoration.resumption?.verdict != .stale { process?.restoration.resumption = judgement }
    return [.resumptionJudged(app: name, launch: launch, judgement: judgement)]
  }
}
