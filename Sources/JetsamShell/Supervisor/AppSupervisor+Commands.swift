import JetsamCore
import JetsamPlatform
import JetsamValues

/// The commands that speak for a program that does not speak the protocol (`ready`, `digest`): run as its hooks are
/// (in its cgroup, as its user, their standard error in its log), each within its timeout. What a digest run prints
/// goes to the policy as the app's own `stateDigest` line would.
extension AppSupervisor {
  /// Runs `command`, the app's command for `run`, from `workingDirectory`; reports `commandEnded` (after the digest
  /// it printed, for a digest run).
  func runCommand(
    _ run: AppCommandRun, app name: String, pid: Int32, command: [String], workingDirectory: String?,
    timeout: Duration
  ) {
    guard let app = process(name, pid: pid) else { return }
    let label = "\(name)'s \(run.label) command (\(command.joined(separator: " ")))"
    // A digest is what it prints on its standard output alone; `ready`'s errors are kept with its output.
    let stdoutTakesErrors = if case .digest = run { false } else { true }
    hooks.start(
      command, for: run.event, app: name, workingDirectory: workingDirectory, cgroup: app.cgroup,
      oomScoreAdj: oomScore(.foreground), timeout: timeout, stdoutTakesErrors: stdoutTakesErrors
    ) { [unowned self] outcome in
      self.report(
        .commandRunObserved(app: name, pid: pid, run: Self.record(run.label, command, outcome), at: self.loop.now()))
      self.commandEnded(run, app: name, pid: pid, label: label, outcome)
    }
  }

  /// Tells the policy how a run ended, and the log what went wrong.
  private func commandEnded(
    _ run: AppCommandRun, app name: String, pid: Int32, label: String, _ outcome: AppCommandOutcome
  ) {
    let at = loop.now()
    if let failure = outcome.failure {
      log.error("\(label) \(failure)")
      return report(.commandEnded(app: name, pid: pid, run: run, succeeded: false, at: at))
    }
    let ending = outcome.timedOut ? "outlived its timeout and was killed" : outcome.end.map(Self.describe) ?? "ended"
    switch run {
    case .ready:
      // A failed poll is the usual answer while the program starts: worth a debug line, not an error.
      let succeeded = outcome.end == .exited(code: 0) && !outcome.timedOut
      if succeeded { log.info("\(label) succeeded: \(name) is up") } else { log.debug("\(label) \(ending)") }
      report(.commandEnded(app: name, pid: pid, run: run, succeeded: succeeded, at: at))
    case .digest(let phase, let validFor):
      switch Self.digest(in: outcome) {
      case .success(let digest):
        log.info("\(label): \(digest)")
        let message = AppMessage.stateDigest(phase: phase, value: digest, validFor: validFor, requestID: nil)
        inbox.post(
          .observed([
            .appMessage(app: name, pid: pid, message: message, at: at),
            .commandEnded(app: name, pid: pid, run: run, succeeded: true, at: at),
          ]))
      case .failure(let problem):
        log.error("\(label) \(outcome.end == .exited(code: 0) ? problem.description : ending)")
        report(.commandEnded(app: name, pid: pid, run: run, succeeded: false, at: at))
      }
    }
  }

  /// Why a run is not a digest, or the digest: one line (white space around it trimmed) of at most
  /// ``AppCommands/maxDigestBytes``, printed by a command that exited 0 in time.
  static func digest(in outcome: AppCommandOutcome) -> Result<String, DigestProblem> {
    guard outcome.end == .exited(code: 0), !outcome.timedOut else { return .failure(DigestProblem("failed")) }
    let digest = outcome.output.trimmingWhitespace
    if digest.isEmpty { return .failure(DigestProblem("printed no digest")) }
    if digest.utf8.count > AppCommands.maxDigestBytes {
      return .failure(
        DigestProblem("printed \(digest.utf8.count) bytes; a digest is at most \(AppCommands.maxDigestBytes)"))
    }
    if digest.contains(where: { $0.isNewline }) {
      return .failure(DigestProblem("printed several lines; a digest is one line"))
    }
    return .success(digest)
  }

  /// A run that printed no usable digest: why, as the log says it.
  struct DigestProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  /// What the exit record keeps of a run (the policy trims it to its bounds).
  static func record(_ run: String, _ command: [String], _ outcome: AppCommandOutcome) -> CommandRunRecord {
    var record = CommandRunRecord(
      run: run, command: command, failure: outcome.failure, seconds: outcome.duration.seconds,
      output: outcome.output.isEmpty ? nil : outcome.output)
    switch outcome.end {
    case .exited(let code): record.exitCode = code
    case .signaled(let signal, _): record.signal = signal
    case .unobserved, nil: break
    }
    if outcome.timedOut { record.timedOut = true }
    return record
  }

  /// How a command ended, in words: `exited with status 1`, `was killed by SIGKILL`.
  private static func describe(_ end: ProcessEnd) -> String {
    switch end {
    case .exited(let code): "exited with status \(code)"
    case .signaled(let signal, _): "was killed by \(Signal(rawValue: signal))"
    case .unobserved: "ended unobserved"
    }
  }
}
