import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// The checks of ``CheckBattery``, in order, each driving the app and judging what jetsamd recorded.
struct CheckProbe {
  /// How long the background check leaves the app in the background, in seconds.
  static let backgroundStay = 8

  let app: String
  let session: LabSession
  private var timeline: Timeline { session.timeline }

  init(app: String, session: LabSession) {
    self.app = app
    self.session = session
  }

  /// Every check, in the order they run.
  mutating func battery() -> [StepResult] {
    var results: [StepResult] = []
    results.append(launch())
    results += watchdog()
    results.append(memoryWarning())
    results.append(restoration())
    results += background()
    results.append(staleness())
    results.append(crash())
    results.append(terminate())
    return results
  }

  // MARK: The checks

  /// It starts and stays up.
  private func launch() -> StepResult {
    let start = now()
    do {
      try session.launch(app)
    } catch {
      return result("launch", "starts and stays up", start, .failed, "\(error)")
    }
    session.pause(2)
    if let exit = settledExit(since: start) {
      return result("launch", "starts and stays up", start, .failed, "it exited: \(exit.labDetail)")
    }
    return result("launch", "starts and stays up", start, .passed, "running 2 s after its launch")
  }

  /// Each lifecycle event of a launch and a round trip to the background is acknowledged within its deadline.
  private func watchdog() -> [StepResult] {
    let start = now()
    var results: [StepResult] = []
    // didFinishLaunching's deadline (3 s) runs from the launch, which was 2 s ago; a second's margin for the
    // deadline's timer on a loaded machine (a kill under way is then waited for: see settledExit).
    session.pause(2)
    results += judgeWatchdog(["didFinishLaunching", "didBecomeActive"], since: start)
    // The second didBecomeActive is a return's: named apart, so that each check has a name of its own.
    let transitions: [(ControlVerb, [String])] = [
      (.background, ["willResignActive", "didEnterBackground"]),
      (.activate, ["willEnterForeground", "didBecomeActive (return)"]),
    ]
    for (verb, events) in transitions {
      let stepStart = now()
      guard isRunning else {
        results += events.map {
          result("watchdog \($0)", "acknowledged in time", stepStart, .skipped, "not reached: the app is not running")
        }
        continue
      }
      _ = try? session.send(ControlRequest(verb: verb, app: app))
      session.pause(3)
      results += judgeWatchdog(events, since: stepStart)
    }
    return results
  }

  private func judgeWatchdog(_ events: [String], since start: Int64) -> [StepResult] {
    let killed = settledExit(since: start)
    return events.map { event in
      let title = "acknowledged in time"
      if let killed, killed.reason == .appWatchdog,
        killed.watchdogEvent == event.split(separator: " ").first.map(String.init)
      {
        return result("watchdog \(event)", title, start, .failed, "\(killed.labDetail)")
      }
      if let killed {
        return result("watchdog \(event)", title, start, .skipped, "not judged: it exited first (\(killed.labDetail))")
      }
      return result("watchdog \(event)", title, start, .passed, "no watchdog kill")
    }
  }

  /// At a memory warning it keeps running and stops growing.
  private mutating func memoryWarning() -> StepResult {
    let title = "a memory warning is survived and memory stops growing"
    let start = now()
    reopen()
    session.pause(1)
    force(.warning)
    let warned = now()
    session.pause(0.6)
    let before = memory
    session.pause(2)
    let after = memory
    force(nil)
    if let exit = exit(since: start) {
      return result("memoryWarning", title, start, .failed, "it exited: \(exit.labDetail)")
    }
    guard
      timeline.all.contains(where: {
        $0.kind == .appEvent && $0.app == app && $0.name == "memoryWarning"
          && $0.monotonicNanoseconds >= warned - 1_000_000_000
      })
    else {
      return result("memoryWarning", title, start, .skipped, "not judged: no memory warning was delivered")
    }
    let grown = after - before
    if grown > 16 << 20 {
      return result(
        "memoryWarning", title, start, .failed,
        "it grew by \(ByteSize.format(grown)) in the 2 s after the warning (\(ByteSize.format(before)) → \(ByteSize.format(after)))"
      )
    }
    return result("memoryWarning", title, start, .passed, "running, \(ByteSize.format(after))")
  }

  /// Backgrounded, suspended, killed by memory pressure, relaunched: it restores what it saved.
  private mutating func restoration() -> StepResult {
    let title = "relaunched after a memory-pressure kill while suspended, it restores what it saved"
    let start = now()
    reopen()
    session.pause(0.5)
    _ = try? session.send(ControlRequest(verb: .background, app: app))
    session.pause(1)
    _ = try? session.send(ControlRequest(verb: .suspend, app: app))
    force(.urgent, wait: 10)
    // A kill waits for a diagnostic being taken of the same process (a CPU exception's samples), within its budget.
    let killed = wait(8) { exit(since: start) }
    force(nil)
    guard let killed else {
      return result("restoration", title, start, .failed, "jetsam did not kill it while suspended")
    }
    guard killed.reason == .memoryPressure, killed.state == "suspended" else {
      return result("restoration", title, start, .failed, "it exited otherwise: \(killed.labDetail)")
    }
    let relaunched = now()
    reopen()
    let verdict = wait(5) { latestVerdict("restoration", since: relaunched) }
    guard let verdict else {
      return result(
        "restoration", title, start, .failed,
        "no restoration was judged: it reported no stateDigest (saved at didEnterBackground, restored at launch)")
    }
    return result(
      "restoration", title, start, verdict.verdict == "match" ? .passed : .failed,
      "launch \(verdict.launch ?? 0): \(verdict.verdict ?? "?") (after \(killed.labDetail))")
  }

  /// In the background with its tasks, it ends them within the budget and stays within the CPU budget.
  private mutating func background() -> [StepResult] {
    let start = now()
    reopen()
    session.pause(0.5)
    _ = try? session.send(ControlRequest(verb: .background, app: app))
    // The task budget (3 s) and its grace, the CPU window (3 s) and killAfter (2 s), and a margin for a loaded
    // machine (a busy loop given a fifth of a core takes the whole window to go over).
    session.pause(Double(Self.backgroundStay))
    let exit = settledExit(since: start)
    var results: [StepResult] = []
    for (location, title, reason) in [
      ("backgroundTask", "ends its background tasks before they expire", ExitReason.backgroundTaskAssertionTimeout),
      ("backgroundCPU", "stays within the background CPU budget", ExitReason.cpuResourceLimit),
    ] {
      if let exit, exit.reason == reason {
        results.append(result(location, title, start, .failed, exit.labDetail))
      } else if let exit {
        results.append(result(location, title, start, .skipped, "not judged: it exited first (\(exit.labDetail))"))
      } else {
        results.append(
          result(location, title, start, .passed, "\(Self.backgroundStay) s in the background, still running"))
      }
    }
    return results
  }

  /// Back from a long suspension, it shows current state (no stale verdict).
  private mutating func staleness() -> StepResult {
    let title = "back from a \(Int(CheckBattery.longSuspension)) s suspension, it shows current state"
    let start = now()
    reopen()
    session.pause(0.5)
    _ = try? session.send(ControlRequest(verb: .background, app: app))
    session.pause(0.5)
    _ = try? session.send(ControlRequest(verb: .suspend, app: app))
    session.pause(CheckBattery.longSuspension)
    let returned = now()
    _ = try? session.send(ControlRequest(verb: .activate, app: app))
    if let exit = exit(since: start) {
      return result("staleness", title, start, .failed, "it exited: \(exit.labDetail)")
    }
    guard let verdict = wait(3, { latestVerdict("resumption", since: returned) }) else {
      return result(
        "staleness", title, start, .skipped,
        "not judged: it reported no resumed digest (stateDigest phase=resumed at didBecomeActive)")
    }
    return result(
      "staleness", title, start, verdict.verdict == "fresh" ? .passed : .failed,
      "resumption \(verdict.verdict ?? "?") after \(Int(CheckBattery.longSuspension)) s suspended")
  }

  /// After a crash (a real SIGSEGV) it relaunches and stays up, restoring what it saved if it says.
  private mutating func crash() -> StepResult {
    let title = "relaunched after a crash, it starts and restores"
    let start = now()
    reopen()
    session.pause(0.5)
    guard let pid = pid else { return result("crash", title, start, .failed, "it is not running") }
    kill(pid, SIGSEGV)
    guard wait(10, { exit(since: start) }) != nil else {
      return result("crash", title, start, .failed, "no exit recorded after SIGSEGV to pid \(pid)")
    }
    let relaunched = now()
    reopen()
    session.pause(2)
    if let exit = exit(since: relaunched) {
      return result("crash", title, start, .failed, "the relaunch exited: \(exit.labDetail)")
    }
    if let verdict = latestVerdict("restoration", since: relaunched), verdict.verdict != "match" {
      return result("crash", title, start, .failed, "relaunched, restoration \(verdict.verdict ?? "?")")
    }
    return result("crash", title, start, .passed, "relaunched and running 2 s later")
  }

  /// Told to end, it acknowledges willTerminate and exits.
  private mutating func terminate() -> StepResult {
    let title = "ends when told (willTerminate)"
    let start = now()
    reopen()
    session.pause(0.5)
    _ = try? session.send(ControlRequest(verb: .terminate, app: app))
    guard let exit = wait(8, { exit(since: start) }) else {
      return result("terminate", title, start, .failed, "it did not exit within 8 s")
    }
    if exit.reason == .appWatchdog {
      return result("terminate", title, start, .failed, exit.labDetail)
    }
    return result("terminate", title, start, .passed, exit.labDetail)
  }

  /// Forces a pressure level (nil: back to measured), waiting up to `wait` seconds for jetsam to act on it.
  private func force(_ level: PressureLevel?, wait: Double? = nil) {
    var request = ControlRequest(verb: .pressure)
    request.action = level == nil ? "clear" : "set"
    request.level = level
    request.wait = wait
    _ = try? session.send(request)
  }

  // MARK: Observing

  private func now() -> Int64 { MonotonicClock.now().nanoseconds }

  private var isRunning: Bool {
    timeline.all.last { $0.kind == .state && $0.app == app }?.to?.isRunning ?? false
  }

  private var pid: Int32? {
    guard isRunning else { return nil }
    return timeline.all.last { $0.kind == .state && $0.app == app && $0.pid != nil }?.pid
  }

  /// The app's memory in the latest sample.
  private var memory: Int64 {
    timeline.all.last { $0.kind == .memory && $0.memory?[app] != nil }?.memory?[app] ?? 0
  }

  /// The app's first exit record since `start`.
  private func exit(since start: Int64) -> ExitRecord? {
    timeline.all.first { $0.kind == .exit && $0.app == app && $0.monotonicNanoseconds >= start }?.record
  }

  /// The app's first exit since `start`, once settled. When none is recorded yet but one is under way (a kill or a
  /// diagnostic of the app was seen since, or its process is gone), it waits up to `settle` seconds for the
  /// record: a hang's stacks and a crash's report are taken before the exit is recorded, which a loaded machine
  /// may draw out. An app still running with nothing under way costs no wait.
  private func settledExit(since start: Int64, settle: Double = 10) -> ExitRecord? {
    if let exit = exit(since: start) { return exit }
    let underWay = timeline.all.contains {
      ($0.kind == .kill || $0.kind == .diagnostic) && $0.app == app && $0.monotonicNanoseconds >= start
    }
    let gone = pid.map { Glibc.kill($0, 0) != 0 && errno == ESRCH } ?? false
    guard underWay || gone else { return nil }
    return wait(settle) { exit(since: start) }
  }

  private func latestVerdict(_ kind: String, since start: Int64) -> LiveChange? {
    timeline.all.last {
      $0.kind == .verdict && $0.app == app && $0.name == kind && $0.monotonicNanoseconds >= start
    }
  }

  /// Brings the app to the foreground, launching it again if it is not running.
  private mutating func reopen() {
    try? session.open(app)
  }

  /// Polls `value` until it gives something or `seconds` pass.
  private func wait<T>(_ seconds: Double, _ value: () -> T?) -> T? {
    let deadline = now() + Int64(seconds * 1e9)
    while true {
      if let found = value() { return found }
      if now() >= deadline { return nil }
      usleep(20_000)
    }
  }

  private func result(
    _ location: String, _ title: String, _ start: Int64, _ outcome: StepResult.Outcome, _ detail: String
  ) -> StepResult {
    StepResult(
      location: location, title: title, isExpectation: true, startSeconds: session.seconds(start),
      durationSeconds: Double(now() - start) / 1e9, outcome: outcome,
      message: outcome == .passed ? nil : detail, evidence: outcome == .passed ? detail : nil)
  }
}

extension ExitRecord {
  /// `appWatchdog in didEnterBackground after 2.0 s (launch 1, background)`.
  var labDetail: String {
    var text = reason.rawValue
    if let event = watchdogEvent { text += " in \(event)" }
    if let seconds = watchdogSeconds { text += String(format: " after %.1f s", seconds) }
    return text + " (launch \(launch), \(state), \(terminationReason))"
  }
}
