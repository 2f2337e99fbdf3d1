import Foundation
import JetsamWire

extension JetsamApplication {
  /// Runs the app's event loop on the calling thread, calling the delegate for each event and acknowledging it
  /// when the delegate method returns.
  ///
  /// Expiration handlers of background tasks run here too, in order with the events. Returns after
  /// `willTerminate` has been handled, or when the daemon closes the channel.
  ///
  /// - Parameter delegate: The app's handlers; used only on this thread.
  public func run(delegate: some JetsamApplicationDelegate) {
    while let event = nextEvent() {
      switch event.kind {
      case .didFinishLaunching(let reason): delegate.applicationDidFinishLaunching(self, launchReason: reason)
      case .willEnterForeground: delegate.applicationWillEnterForeground(self)
      case .didBecomeActive: delegate.applicationDidBecomeActive(self)
      case .willResignActive: delegate.applicationWillResignActive(self)
      case .didEnterBackground: delegate.applicationDidEnterBackground(self)
      case .memoryWarning(let level): delegate.applicationDidReceiveMemoryWarning(self, level: level)
      case .backgroundTaskWillExpire: break  // nextEvent() has run the task's expiration handler.
      case .willTerminate: delegate.applicationWillTerminate(self)
      case .unknown: delegate.application(self, didReceiveUnknownEvent: event)
      }
      event.acknowledge()
      if event.kind == .willTerminate { return }
    }
  }

  /// The app's events, for code that prefers `for await` to a delegate. Call ``JetsamEvent/acknowledge()`` on
  /// each when it has been handled.
  ///
  /// There is one sequence per app, to be iterated once, and not together with ``run(delegate:)``. Expiration
  /// handlers run before their `backgroundTaskWillExpire` event is delivered. The sequence ends after
  /// `willTerminate`, or when the daemon closes the channel.
  public var events: AsyncStream<JetsamEvent> {
    state.withLock { state in
      if let stream = state.eventStream { return stream }
      let (stream, continuation) = AsyncStream.makeStream(of: JetsamEvent.self)
      state.eventStream = stream
      let pump = Thread { [self] in
        while let event = nextEvent() {
          continuation.yield(event)
          if event.kind == .willTerminate { break }
        }
        continuation.finish()
      }
      pump.name = "jetsam-events"
      pump.start()
      return stream
    }
  }

  /// Takes the next event, blocking, and does the bookkeeping due before its handler runs: the application
  /// state, the launch reason, and a background task's expiration handler.
  ///
  /// - Returns: The event, or `nil` once the channel has closed and no events remain.
  func nextEvent() -> JetsamEvent? {
    guard let event = queue.pop() else { return nil }
    var expirationHandler: (@Sendable () -> Void)?
    state.withLock { state in
      switch event.kind {
      case .didFinishLaunching(let reason):
        state.launchReason = reason
        if let summary = event.field(.summary) { state.stateSummary = summary }
        let destination = event.field(.state).flatMap(LaunchDestination.init(rawValue:))
        state.applicationState = destination == .background ? .background : .inactive
      case .willEnterForeground:
        state.applicationState = .inactive
        state.backgroundDuration = event.backgroundDuration
        state.suspendedDuration = event.suspendedDuration
      case .willResignActive: state.applicationState = .inactive
      case .didBecomeActive: state.applicationState = .active
      case .didEnterBackground: state.applicationState = .background
      case .backgroundTaskWillExpire(let task): expirationHandler = state.expirationHandlers.removeValue(forKey: task)
      case .memoryWarning, .willTerminate, .unknown: break
      }
    }
    expirationHandler?()
    return event
  }
}
