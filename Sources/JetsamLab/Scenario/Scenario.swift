import Foundation
import JetsamConfig
import JetsamCore
import JetsamProtocol

/// A lab scenario (LABS.md): the device, the apps, and a script of steps with expectations, read from a JSON5 file.
public struct Scenario: Sendable {
  /// The scenario's name (its `name`, else the file's name without extension).
  public var name: String
  /// The file it came from, as given (errors and reports name it).
  public var file: String
  /// The device profile to run the private jetsamd with (a file), if any.
  public var profile: String?
  /// Extra jetsamd configuration for the private daemon (its `config`), under the lab's own keys.
  package var config: [String: JSONTree]
  /// The apps by name.
  public var apps: [String: LabApp]
  public var steps: [Step]
  /// Every exit must be one a step caused (`kill`, `terminate`) or expected (`expect`); others fail the run.
  public var noUnexpectedExits: Bool
  /// The whole run may take at most this long.
  public var timeLimit: Duration?
  /// A seeded random session after the steps, if any.
  public var chaos: ChaosSettings?
  /// The hosts its steps run on over SSH (its `hosts`; `--host` adds or replaces them); empty: one daemon, local.
  public var hosts: [LabHost] = []
}

/// How an app is started.
public struct LabApp: Sendable, Equatable {
  /// argv; a first word without a slash is looked up beside jetsam-lab, then on PATH.
  public var command: [String]
  public var environment: [String: String] = [:]
  public var memoryLimit: Int64?
  public var cpuLimit: Double?
  public var band: Band?
  public var acknowledgements: AcknowledgementMode?
  /// Commands that speak for a program that does not speak the protocol (`jetsam-lab check`'s `--ready`, …): its
  /// `ready`, `digest`, `digestValidFor` and `on`.
  public var commands = ProgramCommands()
  /// What a user does with the program (one shell line, run by the lab at an `exercise` step), so that there is
  /// state to lose: `jetsam-lab check --exercise`.
  public var exercise: String?
}

/// One step of a scenario's script.
public struct Step: Sendable {
  /// Where it is: `steps[3]`.
  public var location: String
  public var action: StepAction
  /// How long an expectation may take to hold (default 10 s), or a step to finish.
  public var within: Duration?
  /// The host it runs on (its `host`), in a lab across hosts.
  public var host: String?

  /// The step in a few words, for reports: `suspend mail`, `expect exit of mail (memoryPressure)`.
  public var title: String { action.title }
}

/// What a step does.
public enum StepAction: Sendable {
  /// Cold-start each app in turn.
  case launch(apps: [String], background: Bool)
  case activate(String)
  case background([String])
  case suspend([String])
  case resume([String])
  case terminate([String])
  case kill(app: String, reason: ExitReason)
  case wait(Duration)
  /// Force a pressure level (nil: back to measured), answered once jetsam has acted.
  case pressure(PressureLevel?)
  /// Charge this much real memory to the device (a balloon), answered once charged.
  case allocate(Int64)
  /// Release the balloon.
  case release
  /// Grow the balloon to `to` in `steps` equal steps over `over`.
  case ramp(to: Int64, over: Duration, steps: Int)
  /// A balloon of `size` for `duration`, then released.
  case spike(size: Int64, duration: Duration)
  case charging(Bool)
  /// Run the app's `exercise` line once its launch is up (its `ready` succeeded); `fails`: the line must fail (a
  /// listener that must be gone), else it must succeed.
  case exercise(app: String, fails: Bool)
  case expect(Expectation)

  public var title: String {
    switch self {
    case .launch(let apps, let background):
      "launch \(apps.count > 3 ? "\(apps[0]) … \(apps[apps.count - 1]) (\(apps.count) apps)" : apps.joined(separator: " "))"
        + (background ? " in the background" : "")
    case .activate(let app): "activate \(app)"
    case .background(let apps): "background \(apps.joined(separator: " "))"
    case .suspend(let apps): "suspend \(apps.joined(separator: " "))"
    case .resume(let apps): "resume \(apps.joined(separator: " "))"
    case .terminate(let apps): "terminate \(apps.joined(separator: " "))"
    case .kill(let app, let reason): "kill \(app) (\(reason.rawValue))"
    case .wait(let duration): "wait \(duration.labText)"
    case .pressure(let level): level.map { "pressure \($0.name)" } ?? "pressure clear"
    case .allocate(let bytes): "allocate \(ByteSize.format(bytes))"
    case .release: "release the balloon"
    case .ramp(let to, let over, let steps): "ramp to \(ByteSize.format(to)) over \(over.labText) (\(steps) steps)"
    case .spike(let size, let duration): "spike \(ByteSize.format(size)) for \(duration.labText)"
    case .charging(let on): "charging \(on ? "on" : "off")"
    case .exercise(let app, let fails): "exercise \(app)" + (fails ? " (must fail)" : "")
    case .expect(let expectation): "expect \(expectation.title)"
    }
  }
}

/// What an `expect` step asks of the run so far.
public enum Expectation: Sendable {
  /// An exit record of the run matches.
  case exit(ExitPattern)
  /// Exit records match these, in this order (others may come between).
  case exits([ExitPattern])
  /// No exit of this app so far.
  case noExit(String)
  /// The app's latest restoration (after a relaunch) or resumption (a return) verdict.
  case verdict(app: String, kind: VerdictKind, verdict: String)
  /// The app is in this state now: a lifecycle state, or `foreground`, `background`, `suspended`, `notRunning`.
  case state(app: String, state: ExpectedState)
  /// The app passed this signpost (with this phase, if given).
  case signpost(app: String, name: String, phase: String?)
  /// The app was delivered this lifecycle event (`memoryWarning`, `backgroundTaskWillExpire`, …).
  case event(app: String, name: String)
  /// The app acknowledged this lifecycle event, or a command that speaks for it did (its hook ended; for
  /// `didEnterBackground` its saved digest was taken): what a scenario waits for before it suspends such a program,
  /// whose commands run in its cgroup and would be stopped with it.
  case acknowledged(app: String, name: String)
  /// The app's memory (its cgroup's charge, as jetsamd last pushed it) is at least this many bytes: how a scenario
  /// knows an allocation is done before it moves on.
  case memory(app: String, atLeast: Int64)

  public var title: String {
    switch self {
    case .exit(let pattern): "exit of \(pattern)"
    case .exits(let patterns): "exits in order: " + patterns.map(\.description).joined(separator: ", then ")
    case .noExit(let app): "no exit of \(app)"
    case .verdict(let app, let kind, let verdict): "\(kind.rawValue) of \(app) is \(verdict)"
    case .state(let app, let state): "\(app) is \(state)"
    case .signpost(let app, let name, let phase): "signpost \(name)\(phase.map { " " + $0 } ?? "") of \(app)"
    case .event(let app, let name): "\(name) delivered to \(app)"
    case .acknowledged(let app, let name): "\(name) acknowledged for \(app)"
    case .memory(let app, let bytes): "\(app) holds at least \(ByteSize.format(bytes))"
    }
  }
}

/// Which verdict.
public enum VerdictKind: String, Sendable {
  case restoration, resumption
}

/// What an expected exit record must show; nil fields match anything.
public struct ExitPattern: Sendable, CustomStringConvertible {
  public var app: String
  public var reason: ExitReason?
  /// `foreground`, `background` or `suspended`.
  public var state: CoarseState?
  public var launch: Int?
  /// A file the record's `lockedFiles` must name (a `suspendedWithLockedFile` kill's evidence).
  public var lockedFile: String?

  public var description: String {
    let details = [
      reason?.rawValue, state.map { "in \($0)" }, launch.map { "launch \($0)" }, lockedFile.map { "holding \($0)" },
    ].compactMap { $0 }
    return app + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
  }
}

extension Duration {
  /// `2s`, `1.5s`, `250ms`, `3m`.
  var labText: String {
    let seconds = self.seconds
    if seconds < 1 { return "\(Int((seconds * 1000).rounded()))ms" }
    if seconds >= 60 && seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60))m" }
    return seconds == seconds.rounded() ? "\(Int(seconds))s" : String(format: "%.1fs", seconds)
  }
}
