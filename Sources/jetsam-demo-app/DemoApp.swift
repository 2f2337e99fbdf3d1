import Foundation
import JetsamClient

/// The demo app's delegate: saves at didEnterBackground, restores after an exit, and misbehaves on request.
final class DemoApp: JetsamApplicationDelegate {
  let options: DemoOptions
  let stateDirectory: String
  let model = DemoModel()
  /// Between willEnterForeground and didBecomeActive of a return from the background (with a feed).
  private var returning = false
  /// Its server connection, with `--server` (or the lab's `JETSAM_CHECK_SERVER`).
  private let server: ServerConnection?

  init(options: DemoOptions) {
    self.options = options
    stateDirectory = options.stateDirectory ?? FileManager.default.currentDirectoryPath
    server = (options.server ?? ProcessInfo.processInfo.environment["JETSAM_CHECK_SERVER"]).flatMap {
      ServerConnection(address: $0)
    }
  }

  func applicationDidFinishLaunching(_ application: JetsamApplication, launchReason: LaunchReason) {
    var line: String
    switch launchReason {
    case .fresh:
      line = "didFinishLaunching reason=fresh"
    case .afterExit where options.forgetToRestore:
      // The restoration bug on purpose: it starts from scratch after a kill, and says nothing of it.
      line = "didFinishLaunching reason=afterExit forgot-to-restore"
    case .afterExit(let previousReason, let previousState, _):
      // Whatever was (or was not) restored is reported: a missing file restores the empty state, and jetsam
      // shows the mismatch with the digest that was reported as saved.
      let restored = (try? DemoState.load(from: stateDirectory)) ?? DemoState()
      model.replace(with: restored)
      application.reportStateDigest(restored.digest, phase: .restored)
      line =
        "didFinishLaunching reason=afterExit previousReason=\(previousReason) previousState=\(previousState) "
        + "summary=\(application.stateSummary ?? "-") restored count=\(restored.count) "
        + "lines=\(restored.document.count) digest=\(restored.digest)"
    }
    model.startTicking()
    if let server { line += " " + server.reconnect() }
    if application.applicationState == .background { line += " state=background" }
    say(line)
    if let rate = options.leakMegabytesPerSecond { Misbehaviour.leak(megabytesPerSecond: rate) }
    if options.spin { Misbehaviour.spin() }
    if let kind = options.crash { Misbehaviour.crash(kind) }
    hangIfAsked("didFinishLaunching")
  }

  func applicationWillEnterForeground(_ application: JetsamApplication) {
    var line = "willEnterForeground count=\(model.snapshot.count)"
    // Its sockets were defuncted while it was suspended: a new connection, unless the bug keeps the dead one.
    if let server { line += " " + (options.keepConnection ? server.hello() : server.reconnect()) }
    if let validFor = options.feedValidFor {
      let away = application.backgroundDuration ?? .zero
      line += " away=\(seconds(away))s suspended=\(seconds(application.suspendedDuration ?? .zero))s"
      if away <= validFor {
        line += " feed=current"
      } else if options.staleOnResume {
        // The staleness bug on purpose: it counts on a refresh timer, which did not run while it was stopped.
        line += " feed=expired(not-refreshed)"
      } else {
        model.refreshFeed()
        line += " feed=refreshed"
      }
      returning = true
    }
    say(line)
    hangIfAsked("willEnterForeground")
  }

  func applicationDidBecomeActive(_ application: JetsamApplication) {
    // What a returning app shows is reported before the counter moves on.
    if returning {
      returning = false
      application.reportStateDigest(model.snapshot.digest, phase: .resumed)
    }
    model.setActive(true)
    say("didBecomeActive count=\(model.snapshot.count) feed=\(model.snapshot.feed)")
    hangIfAsked("didBecomeActive")
  }

  func applicationWillResignActive(_ application: JetsamApplication) {
    model.setActive(false)
    say("willResignActive count=\(model.snapshot.count)")
    hangIfAsked("willResignActive")
  }

  func applicationDidEnterBackground(_ application: JetsamApplication) {
    model.setActive(false)
    var line = "didEnterBackground " + save(application) + " " + startBackgroundWork(application)
    if let server, !options.keepConnection {
      server.close()
      line += " connection=closed"
    }
    say(line)
    hangIfAsked("didEnterBackground")
  }

  func applicationDidReceiveMemoryWarning(_ application: JetsamApplication, level: MemoryWarningLevel) {
    say("memoryWarning level=\(level) count=\(model.snapshot.count)")
    hangIfAsked("memoryWarning")
  }

  func applicationWillTerminate(_ application: JetsamApplication) {
    model.setActive(false)
    say("willTerminate " + save(application))
    hangIfAsked("willTerminate")
  }

  func application(_ application: JetsamApplication, didReceiveUnknownEvent event: JetsamEvent) {
    say("\(event.name) (unknown event)")
  }

  /// Saves the state (unless told to forget) and reports its digest and summary.
  ///
  /// - Returns: What happened, for the event's line.
  private func save(_ application: JetsamApplication) -> String {
    let state = model.snapshot
    var outcome = "saved"
    // Labs draw the save on their timelines: whether it ended before a kill is there to see.
    application.signpost("save", phase: .begin)
    defer { application.signpost("save", phase: .end) }
    if options.forgetToSave {
      // The restoration bug on purpose: the digest claims a save that never happened.
      outcome = "forgot-to-save"
    } else {
      do {
        try state.save(in: stateDirectory)
      } catch {
        outcome = "save-failed(\(error.localizedDescription))"
      }
    }
    // With --unreported-save, the bug is in the reporting: the save works, but jetsam never hears of it.
    if !options.unreportedSave {
      application.reportStateDigest(state.digest, phase: .saved, validFor: options.feedValidFor)
    }
    application.stateSummary = state.summary
    return "\(outcome) count=\(state.count) lines=\(state.document.count) digest=\(state.digest)"
  }

  /// Begins a background task: a short "upload" that ends itself, or, with `--never-end-task`, one that never
  /// ends.
  ///
  /// - Returns: What was begun, for the event's line.
  private func startBackgroundWork(_ application: JetsamApplication) -> String {
    if options.neverEndTask {
      let task = application.beginBackgroundTask(withName: "never-ending") {
        say("backgroundTaskWillExpire task=never-ending (not ending it)")
      }
      return "task=\(task) (never ends)"
    }
    let task = application.beginBackgroundTask(withName: "upload") {
      say("backgroundTaskWillExpire task=upload (ending it)")
    }
    guard task != .invalid else { return "task=invalid" }
    let remaining = application.backgroundTimeRemaining
    let upload = Thread {
      Thread.sleep(forTimeInterval: 0.3)
      application.endBackgroundTask(task)
    }
    upload.start()
    return "task=\(task) remaining=\(remaining.isFinite ? String(format: "%.1f", remaining) : "inf")"
  }

  private func hangIfAsked(_ event: String) {
    guard options.hangIn == event else { return }
    say("\(event) hanging (--hang-in)")
    Misbehaviour.hang()
  }
}

/// A duration in seconds with three decimals, for the event lines.
func seconds(_ duration: Duration) -> String {
  let (whole, attoseconds) = duration.components
  return String(format: "%.3f", Double(whole) + Double(attoseconds) / 1e18)
}

/// Prints a line to standard output straight away (unbuffered, so a log shows it even if the app is killed).
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
