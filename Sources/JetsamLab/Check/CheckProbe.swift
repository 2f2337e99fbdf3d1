import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol

/// The checks of ``CheckBattery``, in order, each driving the app and judging what jetsamd recorded.
///
/// No check judges after a pause of its own: each waits, with a generous bound, for the event it judges in the watch
/// stream (a state change, an event's delivery or acknowledgement, an exit record, a verdict), and a check that an
/// app *stays* well (stays up, stays within its budgets, stays suspended) waits until jetsamd's own clock, as its
/// watch stream carries it, has passed the span judged: by then jetsamd has acted on it, whatever else the machine
/// is busy with.
struct CheckProbe {
  /// How long the background check leaves the app in the background, in seconds of jetsamd's clock.
  static let backgroundStay = 12
  /// How long a launched app must stay up after its start, on jetsamd's clock: within the launch deadline, so that
  /// a launch that hangs is the watchdog check's to judge.
  static let launchStay = Duration.seconds(2)
  /// The bound of every wait for something the app or jetsamd is to do, on top of any deadline it waits out: only
  /// a check about to fail (or a machine stalled for that long) waits that long.
  static let patience = Duration.seconds(30)
  /// How far past a deadline jetsamd's clock must be seen before the deadline counts as met (its timer has fired).
  static let deadlineMargin: Int64 = 500_000_000

  /// How long after its return, on jetsamd's clock, an app has to talk to its server again (the sockets check).
  static let reconnectSpan: Int64 = 2_000_000_000

  let app: String
  let session: LabSession
  /// The watchdog's deadlines, as the battery's jetsamd runs with them.
  let timings: LifecycleTimings
  /// The server the program may hold a connection to (``CheckServer/variable``).
  let server: CheckServer
  /// The commands that speak for the program (given to jetsamd with each launch): which events they answer and which
  /// checks they judge through (``through(_:)``).
  let commands: ProgramCommands
  /// Run after each launch becomes active (``exerciseNewLaunch()``).
  let exercise: CheckExercise?
  /// The process the exercise last ran for, and what went wrong with that run (nil: it succeeded, or none ran).
  var exercisedPid: Int32?
  var exerciseProblem: String?
  var timeline: Timeline { session.timeline }
  /// When the launch check began: the launch's events are judged from then.
  private var launched: Int64 = 0

  init(
    app: String, session: LabSession, timings: LifecycleTimings, server: CheckServer,
    commands: ProgramCommands = ProgramCommands(), exercise: CheckExercise? = nil
  ) {
    self.app = app
    self.session = session
    self.timings = timings
    self.server = server
    self.commands = commands
    self.exercise = exercise
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
    results.append(sockets())
    results.append(crash())
    results.append(terminate())
    return results
  }

  // MARK: The checks

  /// It starts and stays up.
  private mutating func launch() -> StepResult {
    let start = now()
    launched = start
    do {
      try session.launch(app)
    } catch {
      return result("launch", "starts and stays up", start, .failed, "\(error)")
    }
    let stayed = staysUp(since: start)
    if let exit = settledExit(since: start) {
      return result("launch", "starts and stays up", start, .failed, "it exited: \(exit.labDetail)")
    }
    guard stayed else {
      return result("launch", "starts and stays up", start, .error, "it did not start, or the watch stream stalled")
    }
    guard isRunning else { return result("launch", "starts and stays up", start, .failed, "it is not running") }
    exerciseNewLaunch()
    if let problem = exerciseProblem {
      return result("launch", "starts and stays up", start, .error, "running, but \(problem)")
    }
    return result(
      "launch", "starts and stays up", start, .passed, "running \(Self.launchStay.secondsText) s after its start")
  }

  /// Each lifecycle event of a launch and a round trip to the background is acknowledged within its deadline.
  private func watchdog() -> [StepResult] {
    var results: [StepResult] = []
    // didFinishLaunching's and didBecomeActive's deadlines run from the launch (the launch check began it).
    results += judgeWatchdog([.didFinishLaunching, .didBecomeActive], since: launched, judgedSince: launched)
    // The second didBecomeActive is a return's: named apart, so that each check has a name of its own.
    let transitions: [(ControlVerb, [AppEventKind])] = [
      (.background, [.willResignActive, .didEnterBackground]),
      (.activate, [.willEnterForeground, .didBecomeActive]),
    ]
    for (verb, events) in transitions {
      let stepStart = now()
      guard isRunning else {
        results += events.map {
          result(
            "watchdog \(name(of: $0, after: verb))", "acknowledged in time", stepStart, .skipped,
            "not reached: the app is not running")
        }
        continue
      }
      _ = try? session.send(ControlRequest(verb: verb, app: app))
      results += judgeWatchdog(events, since: stepStart, judgedSince: stepStart, after: verb)
    }
    return results
  }

  /// `didBecomeActive (return)` for the return's, else the event's own name.
  private func name(of event: AppEventKind, after verb: ControlVerb? = nil) -> String {
    verb == .activate && event == .didBecomeActive ? "didBecomeActive (return)" : event.rawValue
  }

  /// Waits until `events` (delivered since `since`) are handled (see ``awaitHandled(_:since:)``), then judges each
  /// by the watchdog kill, if any, since `judgedSince`.
  private func judgeWatchdog(
    _ events: [AppEventKind], since: Int64, judgedSince start: Int64, after verb: ControlVerb? = nil
  ) -> [StepResult] {
    let handled = awaitHandled(events, since: since)
    let killed = settledExit(since: start)
    return events.map { event in
      let title = "acknowledged in time"
      let location = "watchdog \(name(of: event, after: verb))"
      if let killed, killed.cause.reason == .appWatchdog, killed.evidence.watchdogEvent == event.rawValue {
        // For a program that speaks no protocol, its command was the one that did not end in time.
        return result(location, title, start, .failed, "\(killed.labDetail)", through: through(event))
      }
      if let killed {
        return result(location, title, start, .skipped, "not judged: it exited first (\(killed.labDetail))")
      }
      guard handled else { return result(location, title, start, .error, "not delivered, or the watch stalled") }
      if let acknowledged = acknowledgement(of: event, since: since) {
        return result(location, title, start, .passed, "acknowledged\(acknowledged)", through: through(event))
      }
      // Neither acknowledged nor killed: jetsamd did not time it, and no kill could have failed it.
      guard speaksProtocol || through(event) != nil else {
        return result(
          location, title, start, .skipped,
          "not judged: it speaks no protocol and has no hook for \(event.rawValue): nothing to time")
      }
      return result(location, title, start, .passed, "no watchdog kill", through: through(event))
    }
  }

  /// At a memory warning it keeps running and stops growing.
  private mutating func memoryWarning() -> StepResult {
    let title = "a memory warning is survived and memory stops growing"
    let start = now()
    reopen()
    force(.warning)
    // Judged on jetsamd's samples: the first 0.6 s after the delivery for the app to react, then 2 s.
    let delivered = awaitChange(since: start) { $0.kind == .appEvent && $0.name == "memoryWarning" }
    let before = delivered.flatMap { memorySample(from: $0.monotonicNanoseconds + 600_000_000) }
    let after = before.flatMap { memorySample(from: $0.at + 2_000_000_000) }
    force(nil)
    if let exit = exit(since: start) {
      return result("memoryWarning", title, start, .failed, "it exited: \(exit.labDetail)")
    }
    guard delivered != nil else {
      return result("memoryWarning", title, start, .skipped, "not judged: no memory warning was delivered")
    }
    guard let before, let after else {
      return result("memoryWarning", title, start, .error, "jetsamd sent no memory samples of the app")
    }
    let grown = after.bytes - before.bytes
    if grown > 16 << 20 {
      return result(
        "memoryWarning", title, start, .failed,
        "it grew by \(ByteSize.format(grown)) in the 2 s after the warning (\(ByteSize.format(before.bytes)) → \(ByteSize.format(after.bytes)))"
      )
    }
    return result("memoryWarning", title, start, .passed, "running, \(ByteSize.format(after.bytes))")
  }

  /// Backgrounded, suspended, killed by memory pressure, relaunched: it restores what it saved.
  private mutating func restoration() -> StepResult {
    let title = "relaunched after a memory-pressure kill while suspended, it restores what it saved"
    let start = now()
    reopen()
    // What it holds is the exercise's doing: without it, a match would judge an empty state.
    if let problem = exerciseProblem {
      return result("restoration", title, start, .error, "not judged on the state it holds: \(problem)")
    }
    // Suspended once its didEnterBackground (where it saves) is handled.
    _ = try? session.send(ControlRequest(verb: .background, app: app))
    _ = awaitHandled([.willResignActive, .didEnterBackground], since: start)
    _ = try? session.send(ControlRequest(verb: .suspend, app: app))
    _ = awaitChange(since: start) { $0.kind == .state && $0.to == .suspended }
    force(.urgent, wait: 10)
    // A kill waits for a diagnostic being taken of the same process (a CPU exception's samples), within its budget.
    let killed = waitFor(timeout: Self.patience, interval: .milliseconds(20)) { exit(since: start) }
    force(nil)
    guard let killed else {
      return result("restoration", title, start, .failed, "jetsam did not kill it while suspended")
    }
    guard killed.cause.endedBy == .jetsam, killed.cause.reason == .memoryPressure, killed.lifecycle.state == .suspended
    else {
      return result("restoration", title, start, .failed, "it exited otherwise: \(killed.labDetail)")
    }
    let relaunched = now()
    reopen()
    let verdict = waitFor(timeout: Self.patience, interval: .milliseconds(20)) {
      latestVerdict("restoration", since: relaunched)
    }
    guard let verdict else {
      guard speaksProtocol || commands.digest != nil else {
        return result(
          "restoration", title, start, .skipped,
          "not judged: it speaks no protocol and has no --digest, so it reported no stateDigest "
            + "(nothing saved to compare)")
      }
      return result(
        "restoration", title, start, .failed,
        "no restoration was judged: it reported no stateDigest (saved at didEnterBackground, restored at launch)")
    }
    return result(
      "restoration", title, start, verdict.verdict == "match" ? .passed : .failed,
      "launch \(verdict.launch ?? 0): \(verdict.verdict ?? "?") (after \(killed.labDetail))",
      through: throughDigest(saving: true))
  }

  /// In the background with its tasks, it ends them within the budget and stays within the CPU budget.
  private mutating func background() -> [StepResult] {
    let start = now()
    reopen()
    _ = try? session.send(ControlRequest(verb: .background, app: app))
    // The task budget (8 s) and its grace (1 s), the CPU window (3 s), and a margin (a busy loop given a fifth of a core
    // takes the whole window to reach the limit): on jetsamd's clock, from the move to the background.
    if let moved = awaitChange(since: start, { $0.kind == .state && $0.to == .background }) {
      _ = awaitDaemonClock(moved.monotonicNanoseconds + Int64(Self.backgroundStay) * 1_000_000_000)
    }
    let exit = settledExit(since: start)
    var results: [StepResult] = []
    for (location, title, reason) in [
      ("backgroundTask", "ends its background tasks before they expire", ExitReason.backgroundTaskAssertionTimeout),
      ("backgroundCPU", "stays within the background CPU limit", ExitReason.cpuResourceLimit),
    ] {
      if let exit, exit.cause.reason == reason {
        results.append(result(location, title, start, .failed, exit.labDetail))
      } else if let exit {
        results.append(result(location, title, start, .skipped, "not judged: it exited first (\(exit.labDetail))"))
      } else if reason == .backgroundTaskAssertionTimeout && !speaksProtocol {
        // A background task is begun on the app channel: without it there is none to expire.
        results.append(
          result(
            location, title, start, .skipped,
            "not judged: it speaks no protocol, so it holds no background task: nothing to time"))
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
    _ = try? session.send(ControlRequest(verb: .background, app: app))
    _ = awaitHandled([.willResignActive, .didEnterBackground], since: start)
    _ = try? session.send(ControlRequest(verb: .suspend, app: app))
    // The suspension's length on jetsamd's clock, which is how jetsamd measures it.
    if let suspended = awaitChange(since: start, { $0.kind == .state && $0.to == .suspended }) {
      _ = awaitDaemonClock(
        suspended.monotonicNanoseconds + Int64(CheckBattery.longSuspension * 1e9) + Self.deadlineMargin)
    }
    let returned = now()
    _ = try? session.send(ControlRequest(verb: .activate, app: app))
    if let exit = exit(since: start) {
      return result("staleness", title, start, .failed, "it exited: \(exit.labDetail)")
    }
    let verdict = waitFor(timeout: Self.patience, interval: .milliseconds(20)) {
      latestVerdict("resumption", since: returned)
    }
    guard let verdict else {
      return result(
        "staleness", title, start, .skipped,
        "not judged: it reported no resumed digest (stateDigest phase=resumed at didBecomeActive, "
          + "or --digest with --digest-valid-for)")
    }
    return result(
      "staleness", title, start, verdict.verdict == "fresh" ? .passed : .failed,
      "resumption \(verdict.verdict ?? "?") after \(Int(CheckBattery.longSuspension)) s suspended",
      through: commands.digestValidFor == nil ? nil : throughDigest(saving: false))
  }

  /// Back from a suspension, at which its network sockets were defuncted (as iOS does), it talks to its server over
  /// a live connection: a program that reuses its dead connection says nothing more.
  private mutating func sockets() -> StepResult {
    let title = "back from a suspension (its sockets defuncted), it talks to its server again"
    let server = self.server
    let start = now()
    reopen()
    guard !server.connections.isEmpty else {
      return result(
        "sockets", title, start, .skipped, "not judged: it never connected to its server ($\(CheckServer.variable))")
    }
    let heldAtStart = server.hasOpenConnection
    _ = try? session.send(ControlRequest(verb: .background, app: app))
    _ = awaitHandled([.willResignActive, .didEnterBackground], since: start)
    _ = try? session.send(ControlRequest(verb: .suspend, app: app))
    guard awaitChange(since: start, { $0.kind == .state && $0.to == .suspended }) != nil else {
      return result("sockets", title, start, .error, "it was not suspended, or the watch stream stalled")
    }
    // Suspended, it holds no connection: it closed it at didEnterBackground, or its defunct reset it.
    guard waitFor(timeout: Self.patience, interval: .milliseconds(20), { server.hasOpenConnection ? nil : true }) != nil
    else {
      return result("sockets", title, start, .error, "its connection stayed open while it was suspended")
    }
    // A reset is what a defunct leaves the server; jetsamd's word of it follows on the watch stream.
    let wasReset = server.connections.contains { $0.reset && ($0.closed ?? .min) >= start }
    let defuncted = wasReset ? awaitChange(since: start) { $0.kind == .sockets } : nil
    let returned = now()
    _ = try? session.send(ControlRequest(verb: .activate, app: app))
    _ = awaitHandled([.willEnterForeground, .didBecomeActive], since: returned)
    let talked = { server.connections.compactMap(\.lastData).filter { $0 >= returned }.min() }
    // Then up to the span on jetsamd's clock: its events handled, there is little left for it to do.
    let due = now() + Self.reconnectSpan
    _ = eventually(timeout: Duration.nanoseconds(Self.reconnectSpan) + Self.patience, interval: .milliseconds(20)) {
      talked() != nil || (timeline.all.last?.monotonicNanoseconds ?? .min) >= due
    }
    if let exit = exit(since: start) {
      return result("sockets", title, start, .failed, "it exited: \(exit.labDetail)")
    }
    let atSuspension =
      if let defuncted {
        "its connection was defuncted at its suspension (\(defuncted.sockets?.count ?? 0) socket(s))"
      } else if heldAtStart {
        "it closed its connection at didEnterBackground"
      } else {
        "it held no live connection to its server when backgrounded (an earlier suspension defuncted it)"
      }
    guard let at = talked() else {
      return result(
        "sockets", title, start, .failed,
        "\(atSuspension); after its return it said nothing to its server within "
          + "\(Self.reconnectSpan / 1_000_000_000) s: a connection must be opened again at willEnterForeground")
    }
    return result(
      "sockets", title, start, .passed,
      "\(atSuspension); it talked to its server again "
        + String(format: "%.2f s after its return", Double(at - returned) / 1e9))
  }

  /// After a crash (a real SIGSEGV) it relaunches and stays up, restoring what it saved if it says.
  private mutating func crash() -> StepResult {
    let title = "relaunched after a crash, it starts and restores"
    let start = now()
    reopen()
    guard let pid = pid else { return result("crash", title, start, .failed, "it is not running") }
    kill(pid, SIGSEGV)
    guard waitFor(timeout: Self.patience, interval: .milliseconds(20), { exit(since: start) }) != nil else {
      return result("crash", title, start, .failed, "no exit recorded after SIGSEGV to pid \(pid)")
    }
    let relaunched = now()
    reopen()
    let stayed = staysUp(since: relaunched)
    if let exit = settledExit(since: relaunched) {
      return result("crash", title, start, .failed, "the relaunch exited: \(exit.labDetail)")
    }
    guard stayed else {
      return result("crash", title, start, .error, "it did not start again, or the watch stream stalled")
    }
    guard isRunning else { return result("crash", title, start, .failed, "the relaunch is not running") }
    let verdict = latestVerdict("restoration", since: relaunched)
    if let verdict, verdict.verdict != "match" {
      return result(
        "crash", title, start, .failed, "relaunched, restoration \(verdict.verdict ?? "?")",
        through: throughDigest(saving: true))
    }
    return result(
      "crash", title, start, .passed,
      "relaunched and running \(Self.launchStay.secondsText) s after its start"
        + (verdict == nil ? "" : ", restoration match"), through: verdict == nil ? nil : throughDigest(saving: true))
  }

  /// Told to end, it acknowledges willTerminate and exits.
  private mutating func terminate() -> StepResult {
    let title = "ends when told (willTerminate)"
    let start = now()
    reopen()
    _ = try? session.send(ControlRequest(verb: .terminate, app: app))
    guard let exit = waitFor(timeout: Self.patience, interval: .milliseconds(20), { exit(since: start) }) else {
      return result(
        "terminate", title, start, .failed, "it did not exit within \(Self.patience.secondsText) s")
    }
    if exit.cause.reason == .appWatchdog {
      return result("terminate", title, start, .failed, exit.labDetail, through: through(.willTerminate))
    }
    return result("terminate", title, start, .passed, exit.labDetail, through: through(.willTerminate))
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

  /// Whether the program speaks the app protocol, as far as the watch stream shows: it has acknowledged a lifecycle
  /// event that none of its commands answers (each acknowledgement is a message on its channel, or a command's
  /// end). jetsamd keeps the fact itself (in `auto` mode an app's acknowledgements are watched from its first valid
  /// message) but reports it nowhere, so this is the closest observable. It tells apart what cannot fail: an event
  /// of a program that speaks no protocol and has no command for it is timed by nobody, a program that never spoke
  /// reported no digest of its own and holds no background task.
  private var speaksProtocol: Bool {
    timeline.all.contains {
      guard $0.kind == .acknowledgement, $0.app == app else { return false }
      guard let event = $0.name.flatMap(AppEventKind.init(rawValue:)) else { return true }
      return through(event) == nil
    }
  }

  private var isRunning: Bool {
    timeline.all.last { $0.kind == .state && $0.app == app }?.to?.isRunning ?? false
  }

  var pid: Int32? {
    guard isRunning else { return nil }
    return timeline.all.last { $0.kind == .state && $0.app == app && $0.pid != nil }?.pid
  }

  /// The app's first change since `start` that `matches`, waited for up to ``patience``.
  private func awaitChange(since start: Int64, _ matches: (LiveChange) -> Bool) -> LiveChange? {
    waitFor(timeout: Self.patience, interval: .milliseconds(20)) {
      timeline.all.first { $0.app == app && $0.monotonicNanoseconds >= start && matches($0) }
    }
  }

  /// Waits until jetsamd's watch stream carries a change stamped `instant` or later: jetsamd's loop has run past
  /// it, and whatever it did until then (a deadline's kill) is in the timeline. Memory samples keep the stream
  /// going. False when it does not get there within ``patience`` of the instant.
  private func awaitDaemonClock(_ instant: Int64) -> Bool {
    let wait = Duration.nanoseconds(max(0, instant - now())) + Self.patience
    return eventually(timeout: wait, interval: .milliseconds(20)) {
      (timeline.all.last?.monotonicNanoseconds ?? .min) >= instant
    }
  }

  /// Waits until `events` (delivered in that order since `since`) are handled: each acknowledged, or the app killed
  /// or gone, or, for an app that does not acknowledge, their deadlines past on jetsamd's clock (each one's watchdog
  /// starts when the one before is acknowledged, so the last is due at the latest by the sum of their deadlines
  /// after the first's delivery). False when the first was not delivered or the stream stalled.
  private func awaitHandled(_ events: [AppEventKind], since start: Int64) -> Bool {
    guard let first = events.first,
      let delivered = awaitChange(since: start, { $0.kind == .appEvent && $0.name == first.rawValue })
    else { return false }
    let allowed = events.map { timings.deadline(for: $0).nanoseconds }.reduce(0, +)
    let due = delivered.monotonicNanoseconds + allowed + Self.deadlineMargin
    return eventually(timeout: .nanoseconds(max(0, due - now())) + Self.patience, interval: .milliseconds(20)) {
      let changes = timeline.all
      let acknowledged = events.allSatisfy { event in
        changes.contains {
          $0.kind == .acknowledgement && $0.app == app && $0.name == event.rawValue && $0.monotonicNanoseconds >= start
        }
      }
      let ending = changes.contains {
        ($0.kind == .kill || $0.kind == .exit) && $0.app == app
          && $0.monotonicNanoseconds >= start
      }
      return acknowledged || ending || (changes.last?.monotonicNanoseconds ?? .min) >= due
    }
  }

  /// ` 0.12 s after its delivery` for `event`'s first acknowledgement since `start`; nil when it has none.
  private func acknowledgement(of event: AppEventKind, since start: Int64) -> String? {
    let changes = timeline.all
    let matches = { (change: LiveChange, kind: LiveChange.Kind) in
      change.kind == kind && change.app == app && change.name == event.rawValue && change.monotonicNanoseconds >= start
    }
    guard let acknowledged = changes.first(where: { matches($0, .acknowledgement) }) else { return nil }
    guard let delivered = changes.first(where: { matches($0, .appEvent) }) else { return "" }
    return String(
      format: " %.2f s after its delivery",
      Double(acknowledged.monotonicNanoseconds - delivered.monotonicNanoseconds) / 1e9)
  }

  /// Waits until the app launched since `start` has been up for ``launchStay`` after its start on jetsamd's clock,
  /// or has ended. False when it never started or the stream stalled.
  private func staysUp(since start: Int64) -> Bool {
    guard let started = awaitChange(since: start, { $0.kind == .state && $0.from == .launching }) else {
      return false
    }
    guard started.to?.isRunning == true else { return true }
    return awaitDaemonClock(started.monotonicNanoseconds + Self.launchStay.nanoseconds)
  }

  /// The first memory sample of the app stamped `instant` or later, waited for.
  private func memorySample(from instant: Int64) -> (at: Int64, bytes: Int64)? {
    guard awaitDaemonClock(instant) else { return nil }
    return waitFor(timeout: Self.patience, interval: .milliseconds(20)) {
      timeline.all.first { $0.kind == .memory && $0.monotonicNanoseconds >= instant && $0.memory?[app] != nil }
        .map { ($0.monotonicNanoseconds, $0.memory![app]!) }
    }
  }

  /// The app's first exit record since `start`.
  private func exit(since start: Int64) -> ExitRecord? {
    timeline.all.first { $0.kind == .exit && $0.app == app && $0.monotonicNanoseconds >= start }?.record
  }

  /// The app's first exit since `start`, once settled. When none is recorded yet but one is under way (a kill or a
  /// diagnostic of the app was seen since, or its process is gone), it waits up to ``patience`` for the record: a
  /// hang's stacks and a crash's report are taken before the exit is recorded, which a loaded machine may draw
  /// out. An app still running with nothing under way costs no wait.
  private func settledExit(since start: Int64) -> ExitRecord? {
    if let exit = exit(since: start) { return exit }
    let underWay = timeline.all.contains {
      ($0.kind == .kill || $0.kind == .diagnostic) && $0.app == app && $0.monotonicNanoseconds >= start
    }
    let gone = pid.map { Glibc.kill($0, 0) != 0 && errno == ESRCH } ?? false
    guard underWay || gone else { return nil }
    return waitFor(timeout: Self.patience, interval: .milliseconds(20)) { exit(since: start) }
  }

  private func latestVerdict(_ kind: String, since start: Int64) -> LiveChange? {
    timeline.all.last {
      $0.kind == .verdict && $0.app == app && $0.name == kind && $0.monotonicNanoseconds >= start
    }
  }

  /// Brings the app to the foreground, launching it again if it is not running, and waits until it is there.
  private mutating func reopen() {
    try? session.open(app)
    _ = waitFor(timeout: Self.patience, interval: .milliseconds(20)) {
      timeline.all.last { $0.kind == .state && $0.app == app }?.to == .foregroundActive ? true : nil
    }
    exerciseNewLaunch()
  }

  private func result(
    _ location: String, _ title: String, _ start: Int64, _ outcome: StepResult.Outcome, _ detail: String,
    through: [String]? = nil
  ) -> StepResult {
    StepResult(
      location: location, title: title, isExpectation: true, startSeconds: session.seconds(start),
      durationSeconds: Double(now() - start) / 1e9, outcome: outcome,
      message: outcome == .passed ? nil : detail, evidence: outcome == .passed ? detail : nil, through: through)
  }
}

extension ExitRecord {
  /// `appWatchdog in didEnterBackground after 2.0 s (launch 1, background)`.
  var labDetail: String {
    var text = cause.reason.rawValue
    if let event = evidence.watchdogEvent { text += " in \(event)" }
    if let seconds = evidence.watchdogSeconds { text += String(format: " after %.1f s", seconds) }
    // iOS's crash-log wording: "CPU: 48 seconds cpu time over 52 seconds (93% cpu average), exceeding …".
    if let usage = evidence.cpuUsage { text += " — CPU: \(usage.summary)" }
    return text + " (launch \(launch), \(lifecycle.state), \(cause.terminationReason))"
  }
}
