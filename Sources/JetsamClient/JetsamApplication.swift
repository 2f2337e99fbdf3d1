import Foundation
import JetsamWire
import Synchronization

/// An app's connection to jetsamd, shaped after UIKit's `UIApplication`.
///
/// jetsamd hands every app a channel (a Unix stream socket whose descriptor is in `$JETSAM_FD`). Connecting
/// says "I speak the protocol": from then on every lifecycle event must be acknowledged within its deadline.
///
/// ```swift
/// final class Notes: JetsamApplicationDelegate {
///   func applicationDidEnterBackground(_ application: JetsamApplication) {
///     save()
///     application.stateSummary = "page=3"
///   }
/// }
/// let app = try JetsamApplication.connect()
/// app.run(delegate: Notes())
/// ```
///
/// Or, with Swift concurrency:
///
/// ```swift
/// for await event in app.events {
///   if event.kind == .didEnterBackground { save() }
///   event.acknowledge()
/// }
/// ```
///
/// The instance is thread-safe. Requests that need the daemon's answer
/// (``beginBackgroundTask(withName:kind:expirationHandler:)``, ``backgroundTimeRemaining``) block the calling
/// thread for a round trip; they may be called from delegate methods, because replies are read on a thread of
/// their own.
public final class JetsamApplication: Sendable {
  struct State {
    var appName: String?
    var launchNumber: Int?
    var launchReason: LaunchReason
    var stateSummary: String?
    var applicationState = ApplicationState.inactive
    var backgroundDuration: Duration?
    var suspendedDuration: Duration?
    var expirationHandlers: [BackgroundTaskIdentifier: @Sendable () -> Void] = [:]
    var eventStream: AsyncStream<JetsamEvent>?
    var errorHandler: (@Sendable (JetsamClientError) -> Void)?
  }

  let channel: LineChannel
  let replies = PendingReplies()
  let queue = EventQueue()
  let state: Mutex<State>

  /// How long a request waits for the daemon's reply while the app runs (time spent suspended is not counted).
  public let replyTimeout: Duration

  private static let sharedInstance = Mutex<JetsamApplication?>(nil)

  /// The app connected by ``connect()``, or `nil` before it has been called.
  public static var shared: JetsamApplication? { sharedInstance.withLock { $0 } }

  /// Connects to jetsamd through the channel in `$JETSAM_FD`, once per process.
  ///
  /// The first call reads the environment, takes over the descriptor, starts reading it and says `hello`; later
  /// calls return the same instance, which is also ``shared``.
  ///
  /// - Returns: The app.
  /// - Throws: ``JetsamClientError/notLaunchedByJetsam`` when `JETSAM_FD` is not set,
  ///   ``JetsamClientError/invalidDescriptor(_:)`` when it does not name an open socket.
  @discardableResult
  public static func connect() throws(JetsamClientError) -> JetsamApplication {
    try sharedInstance.withLock { (shared: inout JetsamApplication?) throws(JetsamClientError) in
      if let shared { return shared }
      let app = try JetsamApplication(launch: LaunchEnvironment(ProcessInfo.processInfo.environment))
      shared = app
      return app
    }
  }

  /// Connects through a channel descriptor given directly, e.g. one end of a `socketpair` in tests.
  ///
  /// - Parameters:
  ///   - fileDescriptor: A connected stream socket; the app owns it from now on and closes it when the daemon
  ///     hangs up or after ``disconnect()``.
  ///   - environment: The launch variables to read (`JETSAM_APP`, `JETSAM_LAUNCH_REASON`, …); `JETSAM_FD` is
  ///     ignored.
  ///   - replyTimeout: How long requests wait for the daemon's reply.
  /// - Throws: ``JetsamClientError/invalidDescriptor(_:)`` when the descriptor is not an open socket.
  public convenience init(
    fileDescriptor: Int32, environment: [String: String] = [:], replyTimeout: Duration = .seconds(5)
  ) throws(JetsamClientError) {
    try self.init(
      launch: LaunchEnvironment(descriptor: fileDescriptor, details: environment), replyTimeout: replyTimeout)
  }

  init(launch: LaunchEnvironment, replyTimeout: Duration = .seconds(5)) throws(JetsamClientError) {
    channel = try LineChannel(descriptor: launch.descriptor)
    state = Mutex(
      State(
        appName: launch.appName, launchNumber: launch.launchNumber, launchReason: launch.launchReason,
        stateSummary: launch.stateSummary))
    self.replyTimeout = replyTimeout
    channel.startReading(
      onOutput: { [self] output in receive(output) },
      onClose: { [self] in
        replies.closeAll()
        queue.close()
      })
    try channel.send(AppLine(AppMessageWord.hello, [(.version, "1")]))
  }

  /// The app's name in jetsam's config (`JETSAM_APP`, or the daemon's `hello`).
  public var appName: String? { state.withLock { $0.appName } }

  /// Which launch this is: 1 for the first, then 2, … (`JETSAM_LAUNCH`, or the daemon's `hello`).
  public var launchNumber: Int? { state.withLock { $0.launchNumber } }

  /// Why the app is starting: from the environment, then from `didFinishLaunching` once that arrives.
  public var launchReason: LaunchReason { state.withLock { $0.launchReason } }

  /// Where the app is in its lifecycle, updated just before each event's handler runs.
  public var applicationState: ApplicationState { state.withLock { $0.applicationState } }

  /// How long the app was away from the foreground in its last stay in the background, and how much of that it
  /// was suspended (none of its timers ran then): set when `willEnterForeground` arrives, before its handler
  /// runs; nil before the first return. Use them to refresh what went stale meanwhile.
  public var backgroundDuration: Duration? { state.withLock { $0.backgroundDuration } }
  public var suspendedDuration: Duration? { state.withLock { $0.suspendedDuration } }

  /// The app's state summary: up to 128 bytes jetsam keeps and hands back at the next launch.
  ///
  /// Reading gives the summary handed back at this launch, or the last one set since. Setting sends
  /// `stateSummary value=…` (`nil` sends an empty summary); the daemon's refusal, such as `tooLarge`, goes to
  /// ``errorHandler``.
  public var stateSummary: String? {
    get { state.withLock { $0.stateSummary } }
    set {
      state.withLock { $0.stateSummary = newValue }
      send(AppLine(.stateSummary, [(.value, newValue ?? "")]))
    }
  }

  /// Reports a digest of the state the app saved, restored or shows again, for jetsam's restoration and
  /// staleness checks (PROTOCOL.md, "Verdicts").
  ///
  /// Report ``StateDigestPhase/saved`` at `didEnterBackground`, from the live state the user is leaving;
  /// ``StateDigestPhase/restored`` after restoring at a launch; ``StateDigestPhase/resumed`` at
  /// `didBecomeActive` after a return from the background, from what the app shows. jetsam shows
  /// `restoration: "match"` when a restore brought back what was saved, and `resumption: "stale"` when a return
  /// showed a saved state older than its `validFor`.
  ///
  /// - Parameters:
  ///   - digest: Any short text that changes when the state does, such as a hash of the saved bytes.
  ///   - phase: Which side of the round trip the digest describes.
  ///   - validFor: With ``StateDigestPhase/saved`` only: how long the saved state stays current (a feed, a
  ///     price); at most a year, rounded to milliseconds.
  public func reportStateDigest(_ digest: String, phase: StateDigestPhase, validFor: Duration? = nil) {
    var fields: [(AppProtocolField, String)] = [(.phase, phase.rawValue), (.value, digest)]
    if let validFor { fields.append((.validFor, AppLine.seconds(validFor))) }
    send(AppLine(.stateDigest, fields))
  }

  /// Marks a point, or the start or end of an interval, in the app's own work (like MetricKit's `mxSignpost`):
  /// jetsamd stamps it with the time and labs draw it on their timelines, next to the lifecycle events, so that
  /// a report shows which handler ran when, and whether a save finished before a kill.
  ///
  /// - Parameters:
  ///   - name: 1 to 128 bytes; a `begin` and the next `end` of the same name make an interval.
  ///   - phase: ``SignpostPhase/begin``, ``SignpostPhase/end``, or ``SignpostPhase/event`` (a single point).
  public func signpost(_ name: String, phase: SignpostPhase = .event) {
    send(AppLine(.signpost, [(.name, name), (.phase, phase.rawValue)]))
  }

  /// Called, on the channel's reader thread, with errors nobody else will see: refusals of lines that carried
  /// no request id, unreadable lines from the daemon, failed writes of acknowledgements. When `nil` (the
  /// default) they are printed to standard error.
  public var errorHandler: (@Sendable (JetsamClientError) -> Void)? {
    get { state.withLock { $0.errorHandler } }
    set { state.withLock { $0.errorHandler = newValue } }
  }

  /// Hangs up the channel: ``run(delegate:)`` returns and ``events`` ends once the events already received
  /// are handled, and requests fail with ``JetsamClientError/channelClosed``.
  public func disconnect() {
    channel.shutdown()
  }

  // MARK: Talking to the daemon

  /// Sends a line that expects no answer, reporting failure to the error handler.
  func send(_ line: AppLine) {
    do throws(JetsamClientError) {
      try channel.send(line)
    } catch {
      report(error)
    }
  }

  /// Sends a request with a fresh `id` and waits for its `reply`.
  ///
  /// - Returns: The reply line.
  /// - Throws: The daemon's `error`, a timeout, or a channel failure.
  func request(
    _ word: AppMessageWord, _ fields: [(AppProtocolField, String)] = []
  ) throws(JetsamClientError) -> AppLine {
    let (id, slot) = try replies.register()
    let line = AppLine(word, [(.id, String(id))] + fields)
    do throws(JetsamClientError) {
      try channel.send(line)
    } catch {
      replies.complete(id: id, with: .failure(error))
      throw error
    }
    switch replies.wait(for: id, slot: slot, timeout: replyTimeout) {
    case .success(let reply): return reply
    case .failure(.replyTimedOut): throw .replyTimedOut(request: word.rawValue)
    case .failure(let error): throw error
    }
  }

  func report(_ error: JetsamClientError) {
    if let handler = errorHandler {
      handler(error)
    } else {
      FileHandle.standardError.write(Data("jetsam: \(error)\n".utf8))
    }
  }

  // MARK: Reading (on the channel's reader thread; never blocks on the daemon)

  private func receive(_ output: LineFramer.Output) {
    guard case .line(let bytes) = output else {
      report(.malformedLine("(a line longer than \(AppLine.maxBytes) bytes)"))
      return
    }
    // An empty line is not a valid line, but it carries nothing to report either: it is skipped.
    guard !bytes.isEmpty else { return }
    let text = String(decoding: bytes, as: UTF8.self)
    let line: AppLine
    do {
      line = try AppLine(parsing: bytes)
    } catch {
      report(.malformedLine("\(text) (\(error))"))
      return
    }
    switch DaemonMessageWord(rawValue: line.word) {
    case .hello:
      state.withLock { state in
        state.appName = line[.app] ?? state.appName
        state.launchNumber = line.integer(.launch) ?? state.launchNumber
      }
    case .event:
      let event = JetsamEvent(line: line) { [weak self] id in
        self?.send(AppLine(.ack, [(.event, String(id))]))
      }
      guard let event else {
        report(.malformedLine(text))
        return
      }
      queue.push(event)
    case .reply:
      guard let id = line.integer(.id) else {
        report(.malformedLine(text))
        return
      }
      replies.complete(id: id, with: .success(line))
    case .error:
      let error = JetsamClientError.daemonError(code: line[.code] ?? "", message: line[.message] ?? "")
      if let id = line.integer(.id), replies.complete(id: id, with: .failure(error)) { return }
      report(error)
    case nil:
      report(.malformedLine(text))
    }
  }
}
