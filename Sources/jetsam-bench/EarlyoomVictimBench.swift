import Foundation
import Glibc

/// Times earlyoom 1.7 on the same kind of kill as ``JetsamdVictimBench``, with the threshold set on the host's
/// MemAvailable (earlyoom knows nothing else).
///
/// Method. Each run:
/// 1. The bench reads MemAvailable A0 and sets earlyoom's threshold T = A0 − victim − lead (`-M T,T` in KiB:
///    the same value for SIGTERM and SIGKILL, so that earlyoom sends SIGKILL at the crossing, as jetsamd does).
///    earlyoom and the victim (`alloc 256 --hold` under the name `jbvictim`, a symlink to jetsam-testapp) start
///    together in a new PID namespace with its own /proc (`unshare --pid --fork --mount-proc`): earlyoom is its
///    PID 1, which it never picks, so the victim is the one process it can see and kill — nothing else on the
///    machine is ever at risk. Both run in a v1 memory cgroup of the bench's, whose counter measures memory back
///    as the device counter does for jetsamd.
/// 2. Once the victim is full and earlyoom polls, the bench reads MemAvailable A1 and tells a new allocator
///    (in the same cgroup, outside the namespace) to mark the chunk at which MemAvailable falls by A1 − T.
/// 3. Kill time: when the bench reads earlyoom's `sending SIGKILL to process …` line (printed right before its
///    kill(2)). Memory back: the cgroup counter dropped by 95 % of the victim's charge. Exit: the victim's pidfd.
///    The sampler also reads MemAvailable every 250 µs to cross-check the mark.
/// 4. earlyoom is SIGKILLed by pid (its namespace and anything left in it go with it), then the allocator.
/// Runs where other activity on the machine moved MemAvailable so much that earlyoom fired before the mark, or
/// never, are counted as failures and reported.
final class EarlyoomVictimBench {
  let binaries: Binaries
  let earlyoom: String
  let options: BenchOptions
  let marks: String
  let model: AllocatorModel
  private let cgroup: BenchCgroup?
  private let victimPath: String
  private let meminfo: MemoryGauge
  private let usage: MemoryGauge?

  init(binaries: Binaries, options: BenchOptions, root: String, marks: String, model: AllocatorModel) throws {
    guard let earlyoom = binaries.earlyoom else { throw BenchError("earlyoom is not installed (scripts/install-deps.sh bench)") }
    self.binaries = binaries
    self.earlyoom = earlyoom
    self.options = options
    self.marks = marks
    self.model = model
    victimPath = root + "/jbvictim"
    unlink(victimPath)
    guard symlink(binaries.testapp, victimPath) == 0 else {
      throw BenchError("symlink \(victimPath): \(String(cString: strerror(errno)))")
    }
    cgroup = BenchCgroup(label: "earlyoom")
    meminfo = try MemoryGauge.memAvailable()
    usage = try cgroup.map { try MemoryGauge.cgroupUsage($0.usagePath) }
  }

  func stop() { cgroup?.remove() }

  var victimCharge: Int64 { model.charge(chunks: options.victimMB) }

  /// One unmeasured warm-up run.
  func prepare(rate: Int) throws {
    _ = try run(rate: rate, index: -1)
  }

  func measureOnce(rate: Int, index: Int) throws -> VictimRun {
    let result = try run(rate: rate, index: index)
    if options.verbose {
      func ms(_ value: Double?) -> String { value.map { String(format: "%7.2f", $0) } ?? "      -" }
      print("  earlyoom \(rate) MiB/s run \(index): kill \(ms(result.toKill)) ms, exit \(ms(result.toExit)) ms, back \(ms(result.toMemoryBack)) ms, mark error \(ms(result.markError)) ms")
    }
    return result
  }

  /// Prefix of a command that joins the bench cgroup (if any) and then execs its arguments.
  private func inCgroup(_ command: [String]) -> (String, [String]) {
    guard let cgroup else { return (command[0], Array(command.dropFirst())) }
    return ("/bin/sh", ["-c", "echo 0 > \"$0\" && exec \"$@\"", cgroup.procsPath] + command)
  }

  private func run(rate: Int, index: Int) throws -> VictimRun {
    let lead = max(Int64(64) << 20, Int64(Double(rate) * JetsamdVictimBench.leadTime) << 20)
    guard let a0 = meminfo.read() else { throw BenchError("cannot read MemAvailable") }
    let thresholdKiB = (a0 - victimCharge - lead) / 1024
    let threshold = thresholdKiB * 1024
    let script =
      "exec 0</dev/null; '\(victimPath)' alloc \(options.victimMB) --hold >/dev/null 2>&1 & "
      + "exec '\(earlyoom)' -M \(thresholdKiB),\(thresholdKiB) -r 0 --prefer '^jbvictim$'"
    let (program, arguments) = inCgroup(["/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "/bin/sh", "-c", script])
    let namespace = try ChildProcess(program, arguments)
    var allocator: ChildProcess?
    var earlyoomPid: Int32?
    defer {
      // earlyoom is the namespace's init: SIGKILL to it ends the namespace, victim included.
      if let earlyoomPid { kill(earlyoomPid, SIGKILL) }
      namespace.stop(signal: SIGKILL, grace: 5)
      allocator?.stop(signal: SIGKILL, grace: 5)
      if let cgroup { waitEmpty(cgroup) }
    }

    // earlyoom is unshare's child, the victim earlyoom's (it was forked by the shell earlyoom replaced).
    var victimPid: Int32?
    let started = MonotonicTime.now()
    while MonotonicTime.seconds(since: started) < 10 {
      if earlyoomPid == nil { earlyoomPid = ProcessStats.children(namespace.pid).first }
      if let earlyoomPid, victimPid == nil { victimPid = ProcessStats.children(earlyoomPid).first }
      if let victimPid, (ProcessStats.residentBytes(victimPid) ?? 0) >= Int64(options.victimMB) << 20,
        namespace.log.first(where: { $0.contains("SIGKILL when mem") }) != nil
      {
        break
      }
      if !namespace.isRunning { break }
      MonotonicTime.sleep(milliseconds: 5)
    }
    guard let victimPid, (ProcessStats.residentBytes(victimPid) ?? 0) >= Int64(options.victimMB) << 20 else {
      throw BenchError("earlyoom or its victim did not start:\n\(namespace.log.text)")
    }
    if namespace.log.first(where: { Self.isKillLine($0) }) != nil {
      throw BenchError("killed before the allocator started (host memory moved by \(lead >> 20) MiB)")
    }
    let watcher = try ExitWatcher(pid: victimPid)
    defer { watcher.cancel() }

    let current = usage.map { settled($0) }
    guard let a1 = meminfo.read() else { throw BenchError("cannot read MemAvailable") }
    let markAt = model.chunksToReach(a1 - threshold, from: 0)
    guard markAt >= 8 else { throw BenchError("host memory moved: only \(markAt) MiB above earlyoom's threshold") }
    let total = markAt + JetsamdVictimBench.extraChunks
    let backLevel = current.map { $0 + model.charge(chunks: total) - victimCharge * 95 / 100 }
    let markPath = "\(marks)/earlyoom-\(rate)-\(index)"
    var gauges = [try MemoryGauge.memAvailable()]
    if let cgroup { gauges.append(try MemoryGauge.cgroupUsage(cgroup.usagePath)) }
    let sampler = MemorySampler(gauges: gauges)
    sampler.start()
    let launched = MonotonicTime.now()
    let (allocProgram, allocArguments) = inCgroup([
      binaries.testapp, "alloc", "\(total)", "--rate", "\(rate)", "--hold", "--mark-file", markPath, "--mark-at", "\(markAt)",
    ])
    do {
      allocator = try ChildProcess(allocProgram, allocArguments)
    } catch {
      _ = sampler.stop()
      throw error
    }
    // Without a cgroup, memory back is read from MemAvailable: up by 95 % of the victim from its lowest point.
    let backGauge = cgroup == nil ? 0 : 1
    func isBack(_ samples: [MemorySampler.Sample]) -> Bool {
      guard let last = samples.last else { return false }
      if let backLevel { return last.values[1] <= backLevel }
      return last.values[0] >= threshold - model.charge(chunks: Self.afterMarkChunks) + victimCharge * 95 / 100
    }
    var mark: UInt64?
    var kill: LineLog.Line?
    var backSeen = false
    while MonotonicTime.seconds(since: launched) < 10 {
      if mark == nil { mark = JetsamdVictimBench.readMark(markPath) }
      if kill == nil { kill = namespace.log.first(after: launched) { Self.isKillLine($0) } }
      if !backSeen, kill != nil, let latest = sampler.latest, isBack([latest]) { backSeen = true }
      if mark != nil, kill != nil, backSeen, watcher.exitTime != nil { break }
      if !namespace.isRunning { break }
      MonotonicTime.sleep(milliseconds: 2)
    }
    let samples = sampler.stop()
    unlink(markPath)
    guard let mark else { throw BenchError("the allocator wrote no mark (\(markPath))") }
    guard let kill else { throw BenchError("earlyoom did not kill within 10 s of the crossing (host memory moved?)") }
    guard kill.text.contains("SIGKILL"), kill.text.contains("jbvictim") else {
      throw BenchError("unexpected earlyoom action: \(kill.text)")
    }
    guard kill.time + 1_000_000 >= mark else {
      throw BenchError("killed before the crossing (host memory moved)")
    }
    var result = VictimRun(mark: mark, kill: kill.time, exit: watcher.exitTime)
    result.achievedRate = achievedRate(allocator?.log)
    result.observedCrossing = MemorySampler.firstTime(in: samples, gauge: 0) { $0 <= threshold }
    if let backLevel {
      result.memoryBack = MemorySampler.firstTime(in: samples, gauge: backGauge, after: mark) { $0 <= backLevel }
    } else {
      let level = threshold - model.charge(chunks: Self.afterMarkChunks) + victimCharge * 95 / 100
      result.memoryBack = MemorySampler.firstTime(in: samples, gauge: 0, after: kill.time) { $0 >= level }
    }
    return result
  }

  /// earlyoom's line about a real kill, `sending SIGKILL to process 2 uid 0 "jbvictim": …` (not its start-up
  /// `sending SIGTERM when mem <= …` nor the debug-only `sending 0 (no-op signal)`).
  static func isKillLine(_ line: String) -> Bool {
    (line.hasPrefix("sending SIGKILL to process") || line.hasPrefix("sending SIGTERM to process"))
  }

  /// Chunks allocated after the mark (for the MemAvailable-based memory-back level without a cgroup).
  private static let afterMarkChunks = JetsamdVictimBench.extraChunks

  private func achievedRate(_ log: LineLog?) -> Double? {
    guard let line = log?.first(where: { $0.hasPrefix("done: ") }) else { return nil }
    let words = line.text.split(separator: " ")
    guard words.count >= 5, let mib = Double(words[1]), let seconds = Double(words[4]), seconds > 0 else { return nil }
    return mib / seconds
  }

  private func settled(_ gauge: MemoryGauge) -> Int64 {
    var last = gauge.read() ?? 0
    var stableSince = MonotonicTime.now()
    let start = stableSince
    while MonotonicTime.seconds(since: start) < 2 {
      MonotonicTime.sleep(milliseconds: 5)
      let value = gauge.read() ?? 0
      if abs(value - last) > 64 << 10 {
        last = value
        stableSince = MonotonicTime.now()
      } else if MonotonicTime.seconds(since: stableSince) >= 0.05 {
        return value
      }
    }
    return gauge.read() ?? last
  }

  private func waitEmpty(_ cgroup: BenchCgroup) {
    let start = MonotonicTime.now()
    while !cgroup.processIDs().isEmpty && MonotonicTime.seconds(since: start) < 5 { MonotonicTime.sleep(milliseconds: 5) }
  }
}
