import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning
import JetsamValues

/// Watches each running app (its pidfd and its cgroup's events), learns how its process ended and reports the app
/// once it is wholly gone: its main process ended (reaped, or told by the spawner service, or by the kernel for an
/// adopted one), whatever it left in its cgroup killed, the cgroup empty, and a kill's memory release back — so that
/// the memory it frees is back before the next pressure reading.
final class AppEndWatcher {
  private let loop: any LoopScheduling
  private let launcher: any ProcessLauncher
  private let log: Logger
  /// The running apps: it enters those it starts watching.
  private let apps: RunningApps
  /// The suspender: an app's stop checks end with it, and its cgroup seen frozen has them made at once.
  private let suspender: AppSuspender
  /// Where an app's end goes (the policy), and the memory it gave back (a pressure sample).
  private let inbox: any ResultInbox
  /// Zombies a tracer holds: reaped once it lets go.
  private lazy var zombies = ZombieReaper(loop: loop) { [unowned self] pidfd in
    // Reaped, or no child of ours any more (ECHILD): either way nothing is left to wait for.
    do { return try self.launcher.reap(pid: 0, pidfd: pidfd) != nil } catch { return true }
  }

  init(
    loop: any LoopScheduling, launcher: any ProcessLauncher, log: Logger, apps: RunningApps, suspender: AppSuspender,
    inbox: any ResultInbox
  ) {
    self.loop = loop
    self.launcher = launcher
    self.log = log
    self.apps = apps
    self.suspender = suspender
    self.inbox = inbox
  }

  /// Enters a running app among the running apps and starts watching it: its exit (pidfd) and its cgroup's events.
  func watch(_ app: AppProcess) {
    apps.add(app)
    let name = app.name
    do {
      // An app found ended at start-up has no pidfd: only its cgroup is left to watch.
      if app.pidfd.rawValue >= 0 {
        app.exitSource = try loop.addWatch(fd: app.pidfd.rawValue, events: EpollEvents.readable) { [unowned self] _ in
          if let app = self.apps[name] { self.mainProcessEnded(app) }
        }
      }
      app.eventsSource = try loop.addWatch(fd: app.cgroup.eventsDescriptor.rawValue, events: EpollEvents.priority) {
        [unowned self] _ in
        guard let app = self.apps[name] else { return }
        // Reading the file re-arms its POLLPRI (kernfs keeps signalling until it is read).
        let events = try? app.cgroup.events()
        if events?.frozen == true && self.suspender.isPending(name) { self.suspender.checkNow() }
        if app.end != nil && events?.populated != true { self.reportIfGone(app) }
      }
    } catch {
      log.error("watching \(name): \(error)")
    }
  }

  /// The main process ended: learn how, kill whatever it left in the cgroup, and report the app once the
  /// cgroup is empty (so the memory it frees is back before the next pressure reading).
  func mainProcessEnded(_ app: AppProcess) {
    guard app.end == nil else { return }
    if !app.adopted, !launcher.reportsExit(of: app.pid), Self.hasEnded(app.pidfd) {
      // jetsamd's own child stays a zombie until it is reaped just below, its I/O counters whole: the launch's
      // writes since the disk-write monitor's last reading are not lost where no cgroup counts them.
      app.writtenAtEnd = (try? ProcessIO.read(pid: app.pid))??.writeBytes
    }
    let known =
      app.adopted
      ? launcher.exitStatus(ofAdopted: app.pid, pidfd: app.pidfd, startTime: app.startTime)
      : try? launcher.reap(pid: app.pid, pidfd: app.pidfd)
    guard let end = known else {
      // The spawner service tells the status once it has reaped the app: waited for, not guessed, and the pidfd
      // (readable from now on) no longer watched meanwhile.
      if launcher.reportsExit(of: app.pid) {
        app.exitSource?.cancel()
        app.exitSource = nil
        return
      }
      // Not our child: the kernel may need a moment to tell its status (the pidfd's exit info appears at reaping).
      if app.adopted { return retryExitStatus(of: app) }
      // Asked while it still runs (a launcher that lost track of it asks again): nothing has ended.
      guard Self.hasEnded(app.pidfd) else { return }
      // Our child, gone but not reapable: a tracer (a debugger) holds its exit. Its pidfd stays ready, so it is no
      // longer watched (the loop would spin); the kernel tells how it ended, and the zombie is reaped once the
      // tracer lets go.
      app.exitSource?.cancel()
      app.exitSource = nil
      let told = launcher.exitStatus(ofAdopted: app.pid, pidfd: app.pidfd, startTime: app.startTime)
      if let pidfd = try? app.pidfd.duplicate() { zombies.add(pidfd) }
      log.warning("\(app.name) pid \(app.pid) ended under a tracer (a debugger?); it is reaped once the tracer lets go")
      return finishEnd(of: app, told ?? .unobserved)
    }
    finishEnd(of: app, end)
  }

  /// Whether the process of `pidfd` has ended (its pidfd reads as ready), without waiting.
  private static func hasEnded(_ pidfd: FileDescriptor) -> Bool {
    var ready = pollfd(fd: pidfd.rawValue, events: Int16(POLLIN), revents: 0)
    return poll(&ready, 1, 0) == 1
  }

  /// The app's main process ended this way: kill what it left in its cgroup, and report it once the cgroup is empty.
  private func finishEnd(of app: AppProcess, _ end: ProcessEnd) {
    app.end = end
    app.exitSource?.cancel()
    app.exitSource = nil
    suspender.forget(app.name)
    if app.isPopulated { try? app.cgroup.killAll() }
    // The cgroup.events watch reports it once empty; it may be empty already.
    reportIfGone(app)
  }

  /// Asks again for an adopted process's status, every millisecond for 50 ms, then records it as unobserved.
  private func retryExitStatus(of app: AppProcess) {
    app.exitStatusAttempts += 1
    guard app.exitStatusAttempts < 50 else {
      app.end = .unobserved
      app.exitSource?.cancel()
      app.exitSource = nil
      if app.isPopulated { try? app.cgroup.killAll() }
      return reportIfGone(app)
    }
    let name = app.name
    if app.exitStatusRetry == nil {
      app.exitStatusRetry = try? loop.addTimer(at: nil) { [unowned self] in
        if let app = self.apps[name] { self.mainProcessEnded(app) }
      }
    }
    app.exitStatusRetry?.schedule(at: loop.now().advanced(by: .milliseconds(1)))
  }

  /// An app that ended while no daemon watched it (re-adoption found it gone): reported once its cgroup (if any) is
  /// empty.
  func endedUnwatched(_ app: AppProcess, _ end: ProcessEnd) {
    app.end = end
    if app.isPopulated { try? app.cgroup.killAll() }
    reportIfGone(app)
  }

  /// Reports the app's exit to the policy once it is wholly gone: main process ended, cgroup empty, and any
  /// memory release finished.
  func reportIfGone(_ app: AppProcess) {
    guard let end = app.end, !app.reported, app.releaseSource == nil, !app.isPopulated else { return }
    app.reported = true
    let oomKilled = ((try? app.cgroup.oomKillCount()) ?? 0) > 0
    inbox.post(.observed([.exited(app: app.name, pid: app.pid, end: end, oomKilled: oomKilled, at: loop.now())]))
    inbox.post(.memoryFreed)
  }
}
