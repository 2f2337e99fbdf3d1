import JetsamValues
import JetsamWire

/// What an app says on its channel: acknowledgements, its state's summary and digests, signposts, background tasks.
extension Acknowledgements {
  /// A message from process `pid` of the app. A signpost comes back as a `signposted` action, the fact the signpost
  /// meter is told of; a processing task begun or ended changes the app's tasks, which the CPU monitor reads.
  func appMessage(_ message: AppMessage, from pid: Int32, of app: inout TrackedApp, at: Instant) -> [PolicyAction] {
    // A message from an earlier launch's channel says nothing about this one.
    guard let process = app.process, process.pid == pid else { return [] }
    let name = app.name
    app.noteSpeaking(message, at: at)
    switch message {
    case .hello:
      return []
    case .acknowledge(let id):
      return acknowledged(id, pid: pid, of: &app, at: at)
    case .stateSummary(let value, let requestID):
      guard value.utf8.count <= AppMessage.maxSummaryBytes else {
        return [
          .appError(
            app: name, pid: pid, requestID: requestID, code: .tooLarge,
            message: "a state summary is at most \(AppMessage.maxSummaryBytes) bytes (got \(value.utf8.count))")
        ]
      }
      // An empty value clears the summary.
      app.summary = value.isEmpty ? nil : value
      return requestID.map { [.reply(app: name, pid: pid, requestID: $0, .done)] } ?? []
    case .stateDigest(let phase, let value, let validFor, let requestID):
      let reply = requestID.map { [PolicyAction.reply(app: name, pid: pid, requestID: $0, .done)] } ?? []
      switch phase {
      case .saved:
        app.process?.restoration.savedDigest = value
        app.process?.restoration.savedAt = at
        app.process?.restoration.savedValidFor = validFor
        return reply
      case .restored:
        app.process?.restoration.restoredDigest = value
        app.process?.restoration.deadline = nil
        return reply + app.restorationJudged()
      case .resumed:
        return reply + app.judgeResumption(value, at: at)
      }
    case .signpost(let signpost, let phase, let requestID):
      guard !signpost.isEmpty, signpost.utf8.count <= AppMessage.maxSignpostNameBytes else {
        return [
          .appError(
            app: name, pid: pid, requestID: requestID, code: .badLine,
            message: "a signpost name is 1 to \(AppMessage.maxSignpostNameBytes) bytes (got \(signpost.utf8.count))")
        ]
      }
      let reply = requestID.map { [PolicyAction.reply(app: name, pid: pid, requestID: $0, .done)] } ?? []
      return [.signposted(app: name, pid: pid, launch: app.launch, name: signpost, phase: phase)] + reply
    case .beginBackgroundTask(let requestID, let taskName, let kind):
      guard process.tasks.open.count < Self.maxOpenBackgroundTasks,
        let task = app.process?.tasks.begin(taskName, kind: kind)
      else {
        return [
          .appError(
            app: name, pid: pid, requestID: requestID, code: .tooManyTasks,
            message: "\(Self.maxOpenBackgroundTasks) background tasks are open already; end some first")
        ]
      }
      return [.reply(app: name, pid: pid, requestID: requestID, .taskBegun(task: task))]
    case .endBackgroundTask(let task, let requestID):
      guard app.process?.tasks.open.removeValue(forKey: task) != nil else {
        return [
          .appError(app: name, pid: pid, requestID: requestID, code: .unknownTask, message: "no open task \(task)")
        ]
      }
      app.process?.tasks.processing.remove(task)
      var actions: [PolicyAction] = []
      if let requestID { actions.append(.reply(app: name, pid: pid, requestID: requestID, .done)) }
      app.suspendIfIdle(grace: rules.backgroundGrace, at: at)
      return actions
    case .backgroundTimeRemaining(let requestID):
      return [
        .reply(
          app: name, pid: pid, requestID: requestID,
          .timeRemaining(app.backgroundTimeRemaining(rules.timings, at: at)))
      ]
    }
  }
}
