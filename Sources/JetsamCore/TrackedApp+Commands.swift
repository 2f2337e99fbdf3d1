import JetsamValues

/// An app's commands (``AppCommands``) as its own: starting a run, and the action that runs it.
extension TrackedApp {
  /// The runs a delivered event starts: `ready` at `didFinishLaunching`, the saved digest at `didEnterBackground`
  /// (unless the event's command hook runs first: then at its end), the resumed digest at the `didBecomeActive` that
  /// ends a return. Also notes which events the runs answer.
  mutating func commandRuns(for event: AppEvent, hookRuns: Bool) -> [PolicyAction] {
    let commands = settings.commands
    guard !commands.isEmpty else { return [] }
    switch event.kind {
    case .didFinishLaunching where commands.ready != nil:
      process?.commands.readyEvent = event.id
      return startReady()
    case .didEnterBackground where commands.digest != nil:
      process?.commands.saveEvent = event.id
      return hookRuns ? [] : startSavedDigest()
    case .didBecomeActive where commands.digest != nil && commands.digestValidFor != nil && event.backgroundFor != nil:
      return commandAction(.digest(.resumed, validFor: nil))
    default:
      return []
    }
  }

  /// Starts a poll of `ready`, counted among the attempts.
  mutating func startReady() -> [PolicyAction] {
    process?.commands.readyAttempts += 1
    return commandAction(.ready)
  }

  /// Starts the run that takes the saved digest.
  mutating func startSavedDigest() -> [PolicyAction] {
    process?.commands.saveDigestRunning = true
    return commandAction(.digest(.saved, validFor: settings.commands.digestValidFor))
  }

  /// The action that runs `run`'s command for the app, from its working directory, within the commands' timeout.
  func commandAction(_ run: AppCommandRun) -> [PolicyAction] {
    guard let pid = process?.pid else { return [] }
    let commands = settings.commands
    let (command, timeout) =
      switch run {
      case .ready: (commands.ready, commands.readyTimeout)
      case .digest: (commands.digest, commands.digestTimeout)
      }
    guard let command else { return [] }
    return [
      .runCommand(
        app: name, pid: pid, run: run, command: command, workingDirectory: settings.launch?.workingDirectory,
        timeout: timeout ?? AppCommands.defaultTimeout)
    ]
  }
}

extension AppCommands {
  /// Whether one of the commands answers `kind` (so that its acknowledgement is watched like a command hook's,
  /// whether or not the program speaks the protocol).
  func answers(_ kind: AppEventKind) -> Bool {
    switch kind {
    case .didFinishLaunching: ready != nil
    case .didEnterBackground: digest != nil
    default: false
    }
  }
}

extension CommandRuns {
  /// A run ended, as the shell saw it: kept for the exit record, within its bounds. `ready` is kept once (its last
  /// run and the attempts so far), not once per poll; of the rest, the latest runs are kept.
  mutating func keep(_ run: CommandRunRecord) {
    var record = run
    record.output = CommandRunRecord.tail(run.output)
    if record.run == AppCommandRun.ready.label {
      record.attempts = max(readyAttempts, 1)
      // The poll that said the program is up stays the one kept: a poll that ends after it (started before it
      // answered) does not replace it.
      if let index = kept.firstIndex(where: { $0.run == record.run }) {
        if kept[index].exitCode == 0 && record.exitCode != 0 {
          kept[index].attempts = record.attempts
          return
        }
        kept.remove(at: index)
      }
    }
    kept.append(record)
    if kept.count > CommandRunRecord.maxRunsKept { kept.removeFirst(kept.count - CommandRunRecord.maxRunsKept) }
  }
}
