import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSockets
import JetsamValues

/// Carries out `defunctSockets`: the app's processes are listed on the loop (one cgroup read); a helper thread
/// looks whether they may hold a network socket at all (most suspended apps hold none, and starting a process for
/// each of a thousand suspensions would load the loop and the launcher for nothing); only if they may is
/// `jetsam-sockets` (``SocketTool``) started through the process launcher to destroy their network sockets where the
/// apps' network is; its output is read on the helper thread within a time budget, and what it destroyed comes back
/// on the loop.
/// A resume of the app waits for that (``whenDefuncted(app:pid:then:)``): an app never runs with the sockets it was
/// to lose. It decides nothing: whether an app's sockets go is the policy's.
final class SocketDefuncter {
  /// Who the sockets are taken from: an app's launch, by its main process.
  struct Subject: Hashable {
    var app: String
    var pid: Int32
  }

  private let loop: any LoopScheduling
  private let tools: ToolStarter
  private let tool: SocketTool
  private let worker: any BackgroundRunning
  /// Whether processes may hold a network socket (blocking: run on `worker`).
  private let mayHoldNetworkSockets: @Sendable ([Int32]) -> Bool
  /// How long one run of the tool may take before it is killed and its outcome says so.
  let budget: Duration
  /// Runs under way per launch, and who waits for them all to be done.
  private var inFlight = WorkUnderWay<Subject>()

  /// Runs the program at `toolPath` through `launcher`, and reads its output on `worker`.
  init(
    loop: any LoopScheduling, launcher: any ProcessLauncher, toolPath: String, worker: any BackgroundRunning,
    budget: Duration = .seconds(2),
    mayHoldNetworkSockets: @escaping @Sendable ([Int32]) -> Bool = NetworkSocketPresence.mayHold
  ) {
    self.loop = loop
    tools = ToolStarter(loop: loop, launcher: launcher)
    tool = SocketTool(path: toolPath)
    self.worker = worker
    self.budget = budget
    self.mayHoldNetworkSockets = mayHoldNetworkSockets
  }

  /// Destroys the network sockets of the processes `processes` lists (app `app`'s, launched as `pid`), then calls
  /// `then` on the loop with what came of it (a failure to list them is its problem), and then whoever waits. The
  /// destruction counts as under way at once (``isDefuncting(app:pid:)``); the processes are listed through
  /// `after` (once the stops under way are seen).
  func defunct(
    app: String, pid: Int32, processes: @escaping () throws -> [Int32], after: AfterStopChecks,
    then: @escaping (NetworkSocketDestruction.Outcome) -> Void
  ) {
    let subject = Subject(app: app, pid: pid)
    inFlight.started(subject)
    let finish = { [weak self] (outcome: NetworkSocketDestruction.Outcome) in
      then(outcome)
      self?.finished(subject)
    }
    after.run { [weak self] in
      let pids: [Int32]
      do {
        pids = try processes()
      } catch {
        return finish(NetworkSocketDestruction.Outcome(problem: "listing its processes: \(error)"))
      }
      guard let self, !pids.isEmpty else { return finish(NetworkSocketDestruction.Outcome()) }
      self.worker.run(
        { [mayHoldNetworkSockets = self.mayHoldNetworkSockets] in mayHoldNetworkSockets(pids) },
        then: { [weak self] may in
          guard may else { return finish(NetworkSocketDestruction.Outcome()) }
          self?.startTool(pids: pids, finish: finish)
        })
    }
  }

  private func startTool(pids: [Int32], finish: @escaping (NetworkSocketDestruction.Outcome) -> Void) {
    let (tool, worker, budget) = (tool, worker, budget)
    tools.start(
      "jetsam-sockets",
      // jetsamd's own sockets are kept: the tool reads them from its /proc entry (in whatever network it is).
      request: { output in tool.request(pids: pids, keeper: getpid(), output: output) },
      then: { started in
        switch started {
        case .success(let run): worker.run({ SocketDefuncter.outcome(of: run, budget: budget) }, then: finish)
        case .failure(let failure): finish(NetworkSocketDestruction.Outcome(problem: failure.message))
        }
      })
  }

  /// What a run of the tool says it did, once it has ended or its budget has run out. Blocking: a helper thread's.
  static func outcome(of run: ToolRun, budget: Duration) -> NetworkSocketDestruction.Outcome {
    let (output, timedOut) = run.collect(budget: budget)
    var outcome = SocketToolOutput.outcome(reading: output)
    if timedOut {
      let late = "jetsam-sockets ran out of its time budget (\(budget.nanoseconds / 1_000_000) ms) and was killed"
      outcome.problem = outcome.problem.map { "\($0); \(late)" } ?? late
    }
    return outcome
  }

  /// Whether the sockets of app `app` (launched as `pid`) are being destroyed.
  func isDefuncting(app: String, pid: Int32) -> Bool { inFlight.isBusy(Subject(app: app, pid: pid)) }

  /// Calls `then` once the destruction of app `app`'s sockets under way is done, or at once if there is none. One
  /// that never reports back (the launcher never answers, a helper stuck) holds nothing: past the budget and a
  /// second, `then` runs.
  func whenDefuncted(app: String, pid: Int32, then: @escaping () -> Void) {
    let subject = Subject(app: app, pid: pid)
    guard inFlight.isBusy(subject) else { return then() }
    let deadline = loop.now().advanced(by: budget + .seconds(1))
    _ = inFlight.wait(for: subject, loop.boundedWait(until: deadline, then: then))
  }

  private func finished(_ subject: Subject) {
    for waiter in inFlight.finished(subject) { waiter() }
  }
}
