import Foundation
import Glibc
import JetsamControlClient
import JetsamPlatform

extension LabRunner {
  /// Runs the scenario across `hosts`, each step on the host it names, each host's jetsamd reached through
  /// ``SSHForward``: one timeline on the lab's clock (each host's times moved by its ``HostClock`` offset), one set of
  /// reports, each host a device track of its own (its memory, pressure and launch metrics) with its apps' lanes under
  /// it (`a/notes`). A host that cannot be reached or drops out fails its steps, naming it and what broke; the other
  /// hosts' steps go on.
  func runAcross(_ hosts: [LabHost], scenario: Scenario) throws -> LabRun {
    let names = hosts.map(\.name)
    for step in scenario.steps {
      guard let host = step.host else {
        throw LabError(
          "\(scenario.file): \(step.location): names no host; this lab runs across \(names.joined(separator: ", ")): "
            + "give it host: \"\(names[0])\"")
      }
      guard names.contains(host) else {
        throw LabError(
          "\(scenario.file): \(step.location).host: \"\(host)\" is not a host of this run (\(names.joined(separator: ", ")))"
        )
      }
    }
    let directory = options.runDirectory + "/hosts"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let interval = options.memoryInterval ?? min(5, max(0.25, Double(scenario.apps.count) / 50))
    let links = hosts.map(HostLink.init)
    defer { for link in links { link.close() } }
    for link in links {
      link.connect(directory: directory, sshConfig: options.sshConfig, interval: interval)
    }
    let started = Date()
    let origin = MonotonicClock.now().nanoseconds
    let commands = Self.commandResolver(
      baseDirectory: scenarioDirectory, binDirectory: options.binDirectory, runDirectory: options.runDirectory)
    for link in links where link.checkReachable() == nil {
      guard let forward = link.forward, let clock = link.clock, let timeline = link.timeline,
        let client = try? ControlClient(path: forward.localSocket)
      else {
        link.fail("host \(link.host.name) (\(link.host.spec)): its forwarded socket stopped answering before the steps")
        continue
      }
      var session = LabSession(
        client: client, timeline: timeline, origin: origin + clock.offsetNanoseconds, commands: commands,
        apps: scenario.apps, exerciseLog: options.runDirectory + "/exercise.log")
      session.clockOffset = clock.offsetNanoseconds
      link.session = session
    }
    var results: [StepResult] = []
    for step in scenario.steps {
      let link = links.first { $0.host.name == step.host }!
      var result: StepResult
      if let problem = link.checkReachable() {
        result = StepResult(
          location: step.location, title: step.title, isExpectation: Self.isExpectation(step),
          startSeconds: Double(MonotonicClock.now().nanoseconds - origin) / 1e9, durationSeconds: 0, outcome: .error,
          message: problem)
      } else {
        result = link.session!.perform(step)
        // A step that failed because the host went away says so, rather than only what the broken connection did.
        if result.outcome != .passed, let problem = link.checkReachable() {
          result.outcome = .error
          result.message = problem + (result.message.map { " (the step: \($0))" } ?? "")
        }
      }
      result.title = "\(link.host.name): \(result.title)"
      results.append(result)
      onStep(result)
    }
    var checks: [StepResult] = []
    for link in links {
      if let problem = link.checkReachable() {
        checks.append(
          StepResult(
            location: "hosts.\(link.host.name)", title: "\(link.host.name) reachable to the end", isExpectation: true,
            startSeconds: Double(MonotonicClock.now().nanoseconds - origin) / 1e9, durationSeconds: 0,
            outcome: .error, message: problem))
        continue
      }
      link.session!.settle()
      for var check in link.session!.checks(scenario: scenario) {
        check.title = "\(link.host.name): \(check.title)"
        checks.append(check)
      }
    }
    for check in checks {
      results.append(check)
      onStep(check)
    }
    // Each host's own: its watch, and its apps' payloads through its forwarding while it is still there (one that
    // dropped out has none, which its track's problem explains).
    let recordings = links.map { link in
      let problem = link.checkReachable()
      var recording = HostRecording(
        track: HostTrack(
          name: link.host.name, spec: link.host.spec, clock: link.clock,
          ramBytes: link.timeline?.snapshot.pressure.ramBytes, problem: problem),
        apps: link.timeline?.snapshot.apps ?? [], changes: link.timeline?.all ?? [])
      if problem == nil, let client = link.session?.client {
        recording.metrics = LaunchFigures.fetch(client, since: started)
      }
      return recording
    }
    return LabRun(
      scenario: scenario.name, file: scenario.file, started: started, origin: origin, steps: results,
      hosts: recordings, resources: RunResources(runner: ProcessUsage.of(getpid())))
  }

  /// Whether the step is an expectation (one JUnit test case).
  static func isExpectation(_ step: Step) -> Bool {
    if case .expect = step.action { return true }
    return false
  }
}
