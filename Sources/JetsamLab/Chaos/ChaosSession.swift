import Foundation
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol

/// What a chaos session did: its seed, each planned action with when it ran and how it went.
public struct ChaosRecord: Codable, Sendable {
  public struct Performed: Codable, Sendable {
    /// Seconds after the run began (the plan's `at` is after the session began).
    public var atSeconds: Double
    public var planned: ChaosPlan.Action
    /// `done`, or `skipped: why` (an app that was not running, a resume of an app that was not suspended).
    public var outcome: String
  }

  public var seed: UInt64
  public var durationSeconds: Double
  public var actions: [Performed]
  /// Kills the session asked for, as `app#launch`-free pairs of app and reason with when: their exits are expected.
  var kills: [(app: String, reason: ExitReason, at: Int64)] = []

  enum CodingKeys: String, CodingKey { case seed, durationSeconds, actions }
}

extension LabSession {
  /// Carries out `plan`, each action at its time (or at once, if the one before ran late).
  func runChaos(_ plan: ChaosPlan, duration: Duration) -> ChaosRecord {
    let start = MonotonicClock.now().nanoseconds
    var record = ChaosRecord(seed: plan.seed, durationSeconds: duration.seconds, actions: [])
    for action in plan.actions {
      pause(.nanoseconds(start + Int64(action.at * 1e9) - MonotonicClock.now().nanoseconds))
      let now = MonotonicClock.now().nanoseconds
      var outcome = "done"
      do {
        switch action.kind {
        case .activate: try open(action.apps[0])
        case .home: try send(ControlRequest(verb: .background, app: action.apps[0]))
        case .spike: try allocate(action.size ?? 0, within: 10)
        case .release: try release()
        case .kill:
          var request = ControlRequest(verb: .kill, app: action.apps[0])
          request.reason = action.reason
          try send(request)
          record.kills.append((action.apps[0], action.reason ?? .memoryPressure, now))
        case .wake:
          // Each app on its own: those not suspended now are skipped, the others woken together.
          var woken: [String] = []
          for app in action.apps where (try? send(ControlRequest(verb: .resume, app: app))) != nil { woken.append(app) }
          if woken.count < action.apps.count {
            outcome = woken.isEmpty ? "skipped: none was suspended" : "woke \(woken.joined(separator: " "))"
          }
        }
      } catch {
        outcome = "skipped: \(error)"
      }
      record.actions.append(ChaosRecord.Performed(atSeconds: seconds(now), planned: action, outcome: outcome))
    }
    pause(.nanoseconds(start + duration.nanoseconds - MonotonicClock.now().nanoseconds))
    return record
  }

  /// The checks of a chaos session: every exit was jetsam's (memory pressure) or one the session asked for, and every
  /// restoration it judged was a match.
  func chaosChecks(_ record: ChaosRecord) -> [StepResult] {
    let now = MonotonicClock.now().nanoseconds
    let exits = timeline.all.filter { $0.kind == .exit }
    let unexpected = exits.filter { change in
      guard let exit = change.record else { return false }
      // Jetsam's own kill is told by who ended the app: a requested kill names the same reason.
      if exit.cause.endedBy == .jetsam && exit.cause.reason == .memoryPressure { return false }
      return !record.kills.contains {
        $0.app == exit.app && $0.reason == exit.cause.reason && $0.at <= change.monotonicNanoseconds
      }
    }
    let verdicts = timeline.all.filter { $0.kind == .verdict && $0.name == "restoration" }
    let wrong = verdicts.filter { $0.verdict != "match" }
    return [
      .check(
        "chaos.exits", "every exit was jetsam's or asked for by the chaos", at: seconds(now),
        problem: unexpected.isEmpty
          ? nil : "unexpected exits: " + unexpected.map { $0.record!.labSummary }.joined(separator: "; "),
        evidence: "\(exits.count) exit(s)"),
      .check(
        "chaos.restoration", "every relaunch restored what was saved", at: seconds(now),
        problem: wrong.isEmpty
          ? nil
          : "restorations that failed: "
            + wrong.map { "\($0.app ?? "?") launch \($0.launch ?? 0): \($0.verdict ?? "?")" }.joined(separator: "; "),
        evidence: "\(verdicts.count) restoration(s), all match"),
    ]
  }
}
