import Foundation
import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// What a lab run did and found: the input of every report (JUnit XML, the JSON summary, the trace, the HTML page).
public struct LabRun: Codable, Sendable {
  public var scenario: String
  public var file: String
  /// When it began (RFC 3339) and, on the daemon's CLOCK_MONOTONIC, the origin of every time in the run.
  public var started: String
  public var originNanoseconds: Int64
  public var durationSeconds: Double
  /// The device's RAM, for drawing memory against it; across hosts the sum of the hosts' (each host's own is its
  /// track's, ``HostTrack/ramBytes``, which its memory is drawn against).
  public var ramBytes: Int64
  /// Each step, and the scenario-wide checks after them (`noUnexpectedExits`, `timeLimit`).
  public var steps: [StepResult]
  /// Every exit record of the run, oldest first.
  public var exits: [ExitRecord]
  /// Every change jetsamd pushed, in order.
  public var timeline: [LiveChange]
  /// The apps as they were when the run began.
  public var initialApps: [AppInfo]
  /// The chaos session, if the scenario had one.
  public var chaos: ChaosRecord?
  /// What the run cost: the runner's own CPU and memory, and the private jetsamd's.
  public var resources: RunResources?
  /// Each app's MetricKit-shaped payload at the end of the run (launch, resume and hang times, signposts…), as
  /// jetsamd added it up since the run began; nil if it did not answer. Across hosts each reachable host's, its apps
  /// named `HOST/app`; a host that dropped out has none.
  public var metrics: [MetricPayload]?
  /// A lab across hosts: each host, its clock offset, and whether it dropped out (its apps are `HOST/app`); nil for
  /// a lab on one daemon.
  public var hosts: [HostTrack]? = nil
  /// Across hosts, the host each change of `timeline` came from, index for index (which host's device a `pressure`
  /// or `memory` change is of); nil for a lab on one daemon.
  public var changeHosts: [String]? = nil

  /// Whether every step and check passed (or was skipped).
  public var passed: Bool { failures.isEmpty }
  public var failures: [StepResult] { steps.filter { $0.outcome == .failed || $0.outcome == .error } }
}

extension LabRun {
  /// A run that began at `started` (`origin` on the daemon's clock) and ends now: its steps, and what `timeline`
  /// saw (the device's RAM, the apps at the start, every change and exit record since).
  init(
    scenario: String, file: String, started: Date, origin: Int64, steps: [StepResult], timeline: Timeline,
    chaos: ChaosRecord? = nil, resources: RunResources? = nil, metrics: [MetricPayload]? = nil
  ) {
    self.init(
      scenario: scenario, file: file,
      started: started.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
      originNanoseconds: origin, durationSeconds: Double(MonotonicClock.now().nanoseconds - origin) / 1e9,
      ramBytes: timeline.snapshot.pressure.ramBytes, steps: steps, exits: timeline.exits, timeline: timeline.all,
      initialApps: timeline.snapshot.apps, chaos: chaos, resources: resources, metrics: metrics)
  }
}

/// One step's (or check's) outcome.
public struct StepResult: Codable, Sendable {
  public enum Outcome: String, Codable, Sendable {
    case passed
    /// An expectation that did not hold.
    case failed
    /// An action that could not be carried out (a request refused, an app that would not start).
    case error
    /// A check that could not judge (the app does not report what it needs); counts as neither.
    case skipped
  }

  /// `steps[3]`, or `expect.noUnexpectedExits` for a check.
  public var location: String
  public var title: String
  /// True for an expectation or a check (one JUnit test case each), false for an action.
  public var isExpectation: Bool
  public var startSeconds: Double
  public var durationSeconds: Double
  public var outcome: Outcome
  /// Why it failed, naming what was expected and what was seen.
  public var message: String?
  /// What decided it: the exit record or verdict that matched (for reports).
  public var evidence: String?
  /// The commands that spoke for the program in this check, as given (`--ready`, `--on didEnterBackground`,
  /// `--digest`): what was judged is what they did, not what the program said. Nil when none did.
  public var through: [String]? = nil

  /// ` (through --ready)` for a check that ran through commands, else empty: the card's note.
  public var throughNote: String { through.map { " (through \($0.joined(separator: ", ")))" } ?? "" }

  /// A scenario-wide check at `startSeconds`: failed with `problem` when there is one, else passed on `evidence`.
  static func check(_ location: String, _ title: String, at startSeconds: Double, problem: String?, evidence: String)
    -> StepResult
  {
    StepResult(
      location: location, title: title, isExpectation: true, startSeconds: startSeconds, durationSeconds: 0,
      outcome: problem == nil ? .passed : .failed, message: problem, evidence: problem == nil ? evidence : nil)
  }
}

/// What a run cost.
public struct RunResources: Codable, Sendable {
  public var runner: ProcessUsage?
  /// The private jetsamd, measured before it stopped (nil with --socket).
  public var daemon: ProcessUsage?
}

/// A process's CPU time (its own, not its children's) and peak resident memory, from /proc.
public struct ProcessUsage: Codable, Sendable {
  public var cpuSeconds: Double
  public var peakRSSBytes: Int64

  /// Reads /proc/PID/stat (utime, stime) and /proc/PID/status (VmHWM); nil when the process is gone.
  static func of(_ pid: Int32) -> ProcessUsage? {
    guard let stat = try? ProcessStat.read(pid: pid), let ticks = stat.cpuTicks,
      let status = try? ProcessStatus.read(pid: pid)
    else { return nil }
    let peak = status["VmHWM"].flatMap { Int64($0.prefix { $0 != " " }) } ?? 0
    return ProcessUsage(
      cpuSeconds: Double(ticks) / Double(ProcessStat.ticksPerSecond), peakRSSBytes: peak * 1024)
  }
}
