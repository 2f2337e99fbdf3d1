/// Help texts, one per verb (tested by running the built binary).
enum Help {
  static let main = """
    Usage: jetsamctl [--socket PATH] [--json] VERB [ARGS...]

    Control jetsamd, the jetsam supervisor.

    Verbs:
      launch NAME [options] [-- CMD ARGS...]   cold-start an app into the foreground
      activate NAME                            bring an app to the foreground (resume or cold-start)
      background NAME...                       move foreground apps to the background
      suspend NAME...                          suspend apps (SIGSTOP or the cgroup freezer)
      resume NAME...                           resume suspended apps into the background
      terminate NAME...                        end apps gracefully (SIGTERM, then SIGKILL)
      kill NAME [--reason REASON]              kill an app now and record REASON
      ps                                       list apps
      top [--interval SECS]                    live view of apps, memory, pressure and exits
      watch [--interval SECS]                  stream every change as it happens
      exits [--app NAME] [--since TIME] [--limit N] [--follow]   show exit records, newest first
      pressure [set LEVEL|clear|allocate SIZE|release]   show or change memory pressure
      device [charging on|off]                 show or switch the device's conditions
      metrics [--app NAME] [--since TIME] [--prometheus]
                                               exit counts per app (MetricKit), or Prometheus' exposition
      diagnostics [--app NAME] [--since TIME]  hang, CPU exception and crash diagnostics with call stacks
      status                                   daemon status

    Options:
      --socket PATH   control socket (default $JETSAM_SOCKET or /run/jetsam/jetsamd.sock)
      --json          machine-readable output
      -h, --help      this help; VERB --help for a verb's help

    Exit status: 0 success, 1 failed operation, 64 misuse.
    """

  static let verbs: [String: String] = [
    "launch": """
    Usage: jetsamctl launch NAME [--memory-limit SIZE] [--cpu-limit PERCENT] [--band BAND]
                            [--env K=V]... [--background] [--acknowledgements MODE]
                            [--locked-files ACTION] [--sockets FATE] [--ready CMD]
                            [--digest CMD [--digest-valid-for S]] [--on EVENT=CMD]...
                            [-- CMD ARGS...]

    Cold-start a configured app, or an ad-hoc one whose command follows `--`. It becomes the foreground
    app (unless --background). Prints the pid.

      --memory-limit SIZE   hard memory cap, e.g. 512M, 2G, or bytes
      --cpu-limit PERCENT   CPU quota in percent of one core
      --band BAND           band floor: idle, background, mail, foreground, audio, critical
      --env K=V             extra environment variable (repeatable)
      --background          launch into the background
      --acknowledgements MODE
                            whether its lifecycle events are watched: always (from launch, as iOS's
                            watchdog), auto (once the app has written a line: a hang before that is
                            not seen), never; default: its config entry's, else appAcknowledgements
      --locked-files ACTION what holding file locks as it is suspended costs it: kill
                            (suspendedWithLockedFile, as iOS), defer (stays running, retried later),
                            ignore; default: its config entry's, else the config's lockedFiles
      --sockets FATE        what becomes of its network sockets when it is suspended: defunct
                            (destroyed, as iOS: ECONNABORTED after its return), keep; default: its
                            config entry's, else the config's sockets

    For a program that does not speak the protocol (each CMD is a shell line, run by /bin/sh -c in the
    app's cgroup as its user; README, "Programs that do not speak the protocol"):
      --ready CMD           it is up once CMD exits 0: polled from the launch with backoff; its first
                            success acknowledges didFinishLaunching (whose watchdog applies)
      --digest CMD          prints a digest of the state it holds (e.g. redis-cli -p 6380 DEBUG DIGEST):
                            run at didEnterBackground (saved) and once --ready succeeds after a relaunch
                            (restored), so that the relaunch gets a verdict: match, mismatch, lost
      --digest-valid-for S  that state stays current S seconds: the digest also runs at the return
                            from the background, which then gets a verdict: stale or fresh
      --on EVENT=CMD        run CMD when EVENT is delivered; its exit acknowledges it (repeatable), as
                            the config's hooks
    """,
    "activate":
      "Usage: jetsamctl activate NAME\n\nBring NAME to the foreground: resume it if suspended, cold-start it if not running.\nThe previous foreground app moves to the background.",
    "background": "Usage: jetsamctl background NAME...\n\nMove foreground apps to the background.",
    "suspend":
      "Usage: jetsamctl suspend NAME...\n\nSuspend apps: every process of their cgroups stops (their memory stays resident).\nSeveral names are one request: all or none are suspended, together.",
    "resume": "Usage: jetsamctl resume NAME...\n\nResume suspended apps into the background (not the foreground).",
    "terminate":
      "Usage: jetsamctl terminate NAME...\n\nEnd apps gracefully: willTerminate to apps that speak the protocol, then SIGTERM, then\nSIGKILL when the grace period runs out.",
    "kill": """
    Usage: jetsamctl kill NAME [--reason REASON]

    Kill NAME's whole cgroup now and record the exit with REASON (default memoryPressure), to reproduce any
    exit on demand. Reasons: normalAppExit, abnormal, memoryResourceLimit, cpuResourceLimit, memoryPressure,
    badAccess, illegalInstruction, appWatchdog, suspendedWithLockedFile, backgroundTaskAssertionTimeout.
    """,
    "ps":
      "Usage: jetsamctl ps [--json]\n\nEvery app: name, pid, state, band, memory, memory limit, seconds in state, launch count,\n"
      + "and its verdicts: RESTORATION (after a relaunch) and RESUMPTION (its returns to the foreground).",
    "exits": """
    Usage: jetsamctl exits [--app NAME] [--since TIME] [--limit N] [--follow] [--verdicts] [--json]

    Exit records from the durable record log and its rotated predecessors, newest first: at most N (default
    1000, at most 100000), each after TIME if given. TIME is RFC 3339 (2026-11-29T14:00:00Z) or relative (10m,
    2h, 30s, 1d). --follow prints them oldest first, then keeps streaming new records as they are written.
    --verdicts: only launches that got a verdict, with the digests it was judged on: their restoration after a
    relaunch (match, mismatch, unsaved, lost) and their returns to the foreground (stale, with how old the saved
    state was and how long it was valid; or fresh). A running launch's verdicts are in `ps`.
    """,
    "pressure": """
    Usage: jetsamctl pressure [--json]
           jetsamctl pressure set LEVEL        force LEVEL (normal, warning, urgent, critical)
           jetsamctl pressure clear            back to measured pressure
           jetsamctl pressure allocate SIZE    charge SIZE of real memory to the device (a balloon)
           jetsamctl pressure release          release the balloon

      --wait          allocate: answer once the balloon is charged (every page touched);
                      set: once jetsam has done what the level asks (no kill in flight or left
                      to make, their exit records written). Exits 1 on timeout.
      --timeout SECS  how long --wait waits (default 30)
    """,
    "metrics": """
    Usage: jetsamctl metrics [--app NAME] [--since TIME] [--json]
           jetsamctl metrics --prometheus

    Every app's exits counted from the exit records (the log and its rotated predecessors), split into
    foreground and background (suspended counts as background) by MetricKit reason. --json prints one
    MXMetricPayload-shaped object per app: applicationExitMetrics.foregroundExitData and backgroundExitData
    with MetricKit's keys (cumulativeNormalAppExitCount, cumulativeMemoryPressureExitCount, ...). TIME as for exits.
    --prometheus prints jetsamd's state and counters in Prometheus' text format instead (README, "Metrics"):
    device memory and pressure, apps by state and band, each app's memory and CPU, exits by app, reason and
    state, jetsam's kills, watchdog kills by event, restoration verdicts, records written.
    """,
    "diagnostics": """
    Usage: jetsamctl diagnostics [--app NAME] [--since TIME] [--json]

    The diagnostics jetsamd kept, oldest first: hangs (the stacks of an app whose lifecycle event hung, taken
    before its watchdog kill), CPU exceptions (stack samples of an app over its CPU budget) and crashes, each
    with where its thread was. --json prints one MXDiagnosticPayload-shaped object per app (crashDiagnostics,
    hangDiagnostics, cpuExceptionDiagnostics, each with MetricKit's callStackTree and diagnosticMetaData).
    """,
    "device": """
    Usage: jetsamctl device [--json]
           jetsamctl device charging on|off

    Show the emulated device's conditions, or switch whether it is idle and charging. While it is, apps'
    background tasks of kind `processing` (like BGProcessingTask) are bound by neither the background-task
    budget nor the CPU monitor; switched off, they are ordinary background tasks again.
    """,
    "top": """
    Usage: jetsamctl top [--interval SECS] [--iterations N]

    A live full-screen view: every app with its state, band, memory (a bar against the device's RAM), time in
    its state and launch count; the pressure level and available memory; the latest exits. Changes are pushed
    by jetsamd on one connection (`watch`); memory is refreshed every SECS (default 1).

    Keys: s  next sort column (memory, name, state, time in state, launches)
          r  reverse the sort
          /  filter apps by name (Enter to apply, Esc to clear)
          q  quit (also Ctrl-C)

    When standard output is not a terminal, prints a plain table every SECS instead (N of them with
    --iterations, else until interrupted).
    """,
    "watch": """
    Usage: jetsamctl watch [--interval SECS] [--json]

    Prints the current apps, then every change as jetsamd makes it: state changes, pressure levels, kills,
    lifecycle events delivered (memory warnings, expirations), signposts, diagnostics, verdicts, exit records,
    and every SECS (default 1) the memory of every running app. --json prints each change as a JSON line
    (PROTOCOL-CONTROL.md, "Watching").
    """,
    "status":
      "Usage: jetsamctl status [--json]\n\nDaemon version, uptime, cgroup and suspend mode, app counts per state, records written.",
  ]
}
