import JetsamWire

extension JetsamApplication {
  /// Asks for time to finish work in the background, as UIKit's method of the same name.
  ///
  /// While a task is open the app stays unsuspended in the background, within a budget (by default 30 s from
  /// entering the background). Shortly before the budget runs out the expiration handler is called: it must
  /// end the task, or the app is killed (`backgroundTaskAssertionTimeout`). Tasks begun in the foreground start
  /// their budget when the app enters the background. Blocks for the daemon's reply.
  ///
  /// A ``BackgroundTaskKind/processing`` task (like `BGProcessingTask`) is deferrable heavy work: while the device
  /// is idle and charging it is bound by neither the budget nor the CPU monitor.
  ///
  /// - Parameters:
  ///   - name: A name shown in jetsam's records, e.g. if the task is never ended.
  ///   - kind: What the task is for: ``BackgroundTaskKind/finishing`` (the default) or
  ///     ``BackgroundTaskKind/processing``.
  ///   - expirationHandler: Called on the event loop's thread when the task's time is nearly up.
  /// - Returns: The task, or ``BackgroundTaskIdentifier/invalid`` if the daemon refused or did not answer (the
  ///   reason goes to ``errorHandler``).
  public func beginBackgroundTask(
    withName name: String? = nil, kind: BackgroundTaskKind = .finishing,
    expirationHandler: (@Sendable () -> Void)? = nil
  ) -> BackgroundTaskIdentifier {
    let reply: AppLine
    // A finishing task is what a line without kind= asks for: the line stays as short as before.
    let kindField: [(AppProtocolField, String)] = kind == .finishing ? [] : [(.kind, kind.rawValue)]
    do throws(JetsamClientError) {
      reply = try request(.beginBackgroundTask, [(.name, name ?? "unnamed")] + kindField)
    } catch {
      report(error)
      return .invalid
    }
    guard let number = reply.integer(.task) else {
      report(.malformedReply(reply.encoded))
      return .invalid
    }
    let task = BackgroundTaskIdentifier(rawValue: number)
    if let expirationHandler {
      state.withLock { $0.expirationHandlers[task] = expirationHandler }
    }
    return task
  }

  /// Ends a background task: the work is done. Ending ``BackgroundTaskIdentifier/invalid`` does nothing.
  ///
  /// - Parameter task: A task from ``beginBackgroundTask(withName:kind:expirationHandler:)``.
  public func endBackgroundTask(_ task: BackgroundTaskIdentifier) {
    guard task != .invalid else { return }
    state.withLock { _ = $0.expirationHandlers.removeValue(forKey: task) }
    send(AppLine(.endBackgroundTask, [(.task, String(task.rawValue))]))
  }

  /// How long, in seconds, the open background tasks may still run: `.infinity` while not in the background.
  ///
  /// Asks the daemon, blocking for its reply. If it cannot be asked, the answer is `.infinity` in the
  /// foreground and 0 in the background (finish now).
  public var backgroundTimeRemaining: Double {
    do throws(JetsamClientError) {
      let reply = try request(.backgroundTimeRemaining)
      guard let text = reply[.seconds] else { throw JetsamClientError.malformedReply(reply.encoded) }
      if text == AppReply.unlimitedSeconds { return .infinity }
      guard let seconds = Double(text) else { throw JetsamClientError.malformedReply(reply.encoded) }
      return seconds
    } catch {
      report(error)
      return applicationState == .background ? 0 : .infinity
    }
  }
}
