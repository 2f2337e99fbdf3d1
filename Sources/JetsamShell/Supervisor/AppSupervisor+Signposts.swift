import JetsamCore

extension AppSupervisor {
  /// Reads app `name`'s counters for a signpost interval's begin or end and reports them
  /// (`signpostCountersRead`; nil counters when the app is gone or a counter cannot be read). CPU time and memory
  /// are one `pread` each of files the cgroup keeps open; bytes written are the disk-write monitor's
  /// (``DiskWriteSampler``): `io.stat` on the loop where the cgroup has I/O accounting, else the sum over its
  /// processes' `/proc/PID/io` on the sampler's helper thread, so the loop never waits on the app's processes.
  func readSignpostCounters(of name: String, pid: Int32, reading: Int) {
    let answer = { [weak self] (counters: SignpostCounters?) in
      guard let self else { return }
      self.report(
        .signpostCountersRead(app: name, pid: pid, reading: reading, counters: counters, at: self.loop.now()))
    }
    guard let app = process(name, pid: pid) else { return answer(nil) }
    let cgroup = app.cgroup
    do {
      let cpu = try cgroup.cpuSeconds()
      let memory = try cgroup.memoryUsage()
      if let written = try cgroup.storageBytesWritten() {
        return answer(SignpostCounters(cpuSeconds: cpu, memoryBytes: memory, bytesWritten: written))
      }
      let pids = try cgroup.processIDs()
      let scan: @Sendable () -> Int64 = { DiskWriteSampler.bytesWritten(by: pids) }
      let counted = { (bytes: Int64) in
        answer(SignpostCounters(cpuSeconds: cpu, memoryBytes: memory, bytesWritten: bytes))
      }
      guard let worker = diskWrites.worker else { return counted(scan()) }
      worker.run(scan, then: counted)
    } catch {
      answer(nil)
    }
  }
}
