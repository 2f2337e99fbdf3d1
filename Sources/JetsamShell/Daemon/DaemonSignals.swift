import JetsamPlatform
import JetsamValues

/// What jetsamd hears from outside its sockets: SIGTERM and SIGINT (stop), SIGHUP (reload), SIGCHLD (a child's state
/// changed) and, with `--exit-with-parent`, the end of the process that started it. Each ends in one of the daemon's
/// handlers; the sources are held for as long as this is.
final class DaemonSignals {
  /// What each signal asks of the daemon.
  struct Handlers {
    /// SIGTERM, SIGINT, or the parent's end (`--exit-with-parent`).
    var stop: () -> Void
    /// SIGHUP.
    var reload: () -> Void
    /// A child was continued: maybe someone's SIGCONT to a suspended app.
    var childContinued: () -> Void
    /// A child stopped or ended: a continuation may hide behind it (see below).
    var childChanged: () -> Void
  }

  private var sources: [EventSource] = []
  private var parentWatch: ParentWatch?

  init(loop: EventLoop, exitWithParent: Bool, log: Logger, handlers: Handlers) throws {
    for signal in [Signal.terminate, .interrupt] {
      sources.append(try loop.onSignal(signal) { handlers.stop() })
    }
    sources.append(try loop.onSignal(.hangup) { handlers.reload() })
    if exitWithParent {
      parentWatch = try ParentWatch(loop: loop) {
        log.notice("the process that started jetsamd has ended")
        handlers.stop()
      }
    }
    // Exits are seen through pidfds: only continuations matter here. But SIGCHLD is not queued: while one is
    // pending, the next merges into it and the first's code is kept, so a continuation that comes right after a
    // stop or an end (a SIGCONT sent the moment a suspend is answered) arrives as CLD_STOPPED or CLD_EXITED. Those
    // have the suspended apps looked at too, shortly and once for however many come.
    sources.append(
      try loop.onSignal(.childStatusChanged) { code in
        if code == childContinuedCode { handlers.childContinued() } else { handlers.childChanged() }
      })
  }
}
