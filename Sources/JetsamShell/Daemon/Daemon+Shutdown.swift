import FoundationEssentials
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamProtocol

extension Daemon {
  /// SIGTERM/SIGINT: end every app gracefully, write their records, remove the cgroups, exit.
  func beginShutdown() {
    guard stopPhase == .running else { return }
    if StopOrRestart.isRestart { return exitForRestart() }
    stopPhase = .stopping
    supervisor.launches.isClosing = true
    let count = supervisor.processes.count
    log.notice("stopping: terminating \(count) app(s)")
    service.manager.stopping(status: "stopping: terminating \(count) app(s)")
    control.stopAccepting()
    pressure.releaseBalloon()
    let now = MonotonicClock.now()
    for name in supervisor.processes.keys.sorted() { try? submit([.terminate(app: name, at: now)]) }
    finishShutdownIfDone()
  }

  /// `systemctl restart`: leave every app running (KillMode=process spares them) with the state file current,
  /// for the next jetsamd to re-adopt.
  func exitForRestart() {
    log.notice("restarting: leaving \(supervisor.processes.count) app(s) running for the next jetsamd to re-adopt")
    service.manager.stopping(status: "restarting: \(supervisor.processes.count) app(s) left running")
    supervisor.launches.isClosing = true
    pressure.releaseBalloon()
    pressure.stop()
    control.close()
    metricsOutputs.stopAccepting()
    settleUnwrittenRecords { [unowned self] in
      // Saved last: an app that ended while the records settled has its record, and is not left to re-adopt.
      self.stateKeeper.changed(urgent: true)
      self.stateKeeper.whenSaved {
        self.loop.exit(code: self.supervisor.records.unwritten.isEmpty ? 0 : 1)
      }
    }
  }

  /// Once every app is gone and its cgroup removed: remove the device and exit.
  func finishShutdownIfDone() {
    // A launch the spawner service has not answered yet is waited for: it must not start after jetsamd is gone.
    guard supervisor.processes.isEmpty, !supervisor.launches.hasSpawnsInFlight, stopPhase == .stopping else { return }
    stopPhase = .finishing
    pressure.stop()
    control.close()
    metricsOutputs.close()
    // The records first: each app's cgroup is held until its record is durable. What a full disk kept from the log
    // goes to the next start, and the cgroups held for it go now.
    settleUnwrittenRecords { [unowned self] in
      self.supervisor.records.releaseAllCgroups()
      self.supervisor.whenCgroupsRemoved {
        do {
          if try !self.device.removeIfEmpty() { self.log.warning("the device cgroup stays: something is still in it") }
        } catch {
          self.log.warning("removing device cgroup: \(error)")
        }
        let unwritten = self.supervisor.records.unwritten.count
        self.log.notice(
          "stopped; \(self.records.written) record(s) written this run"
            + (unwritten > 0 ? ", \(unwritten) left for the next start" : ""))
        self.stateKeeper.whenSaved { self.loop.exit(code: unwritten == 0 ? 0 : 1) }
      }
    }
  }

  // MARK: Records a stop could not write

  /// Where a stopping jetsamd leaves the records it could not write (a full disk): the runtime directory, on
  /// another filesystem (tmpfs), read back at the next start.
  var leftoverRecordsPath: String { directoryPart(of: options.socketPath(in: config)) + "/unwritten-exits.jsonl" }

  /// Writes what the previous jetsamd had not made durable, before any new record, each once: the records its stop
  /// left in the runtime directory (a full disk), and those its state file held when it ended (a crash: the apps
  /// they end were already gone from its running set).
  func takeOverUnwrittenRecords(pending: [ExitRecord]) {
    var leftovers: [ExitRecord] = []
    do {
      leftovers = try RecordListFile.read(leftoverRecordsPath)
    } catch {
      log.error("reading \(leftoverRecordsPath): \(error)")
    }
    var seen: Set<RecordIdentity> = []
    let unwritten = (leftovers + pending).sorted { $0.time < $1.time }.filter { record in
      seen.insert(RecordIdentity(record)).inserted && !isInLog(record)
    }
    guard !unwritten.isEmpty else {
      if !leftovers.isEmpty { removeLeftoverRecords() }
      return
    }
    log.notice("writing \(unwritten.count) exit record(s) the previous jetsamd left unwritten")
    supervisor.records.takeOver(unwritten)
  }

  /// Whether the record log holds `record` already. Records land in order, so it does when its app's last
  /// recorded exit is this very one, or one of a later launch.
  func isInLog(_ record: ExitRecord) -> Bool {
    guard let last = policy.lastExit(of: record.app) else { return false }
    return last.launch > record.launch || (last.launch == record.launch && last.pid == record.pid)
  }

  /// The records left for this start are in the log now.
  func removeLeftoverRecords() {
    unlink(leftoverRecordsPath)
  }

  /// At stop: waits for the records still unwritten (retrying those a full disk refused) for up to the config's
  /// `records.stopGrace`, then leaves the rest in ``leftoverRecordsPath`` (or, failing that, in full in the
  /// journal) and calls `then`.
  func settleUnwrittenRecords(then: @escaping () -> Void) {
    if supervisor.records.isRetrying {
      log.warning(
        "stopping with \(supervisor.records.unwritten.count) exit record(s) unwritten: retrying for "
          + "\(config.records.stopGrace.duration)")
    }
    supervisor.records.whenWritten(within: config.records.stopGrace.duration) { [unowned self] in
      let unwritten = self.supervisor.records.unwritten
      if !unwritten.isEmpty { self.leaveUnwritten(unwritten) }
      then()
    }
  }

  func leaveUnwritten(_ unwritten: [ExitRecord]) {
    do {
      try RecordListFile.write(unwritten, to: leftoverRecordsPath)
      log.warning(
        "\(unwritten.count) exit record(s) could not be written to \(records.log.path); kept in \(leftoverRecordsPath) "
          + "for the next start")
    } catch {
      log.error("\(unwritten.count) exit record(s) could not be written anywhere (\(error)); here they are:")
      let encoder = JSONEncoder.stable
      for record in unwritten {
        let line = (try? encoder.encode(record)).map { String(decoding: $0, as: UTF8.self) } ?? "\(record)"
        log.error("unwritten exit record: \(line)")
      }
    }
  }
}
