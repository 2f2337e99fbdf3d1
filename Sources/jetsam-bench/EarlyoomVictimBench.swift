import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamTestKit

/// Times earlyoom 1.7 on the same kind of kill as ``JetsamdVictimBench``, with the threshold set on the host's
/// MemAvailable (the only figure earlyoom watches).
///
/// Method. Each run:
/// 1. The bench reads MemAvailable A0 and sets earlyoom's threshold T = A0 − victim − lead (`-M T,T` in KiB: the
///    same value for SIGTERM and SIGKILL, so that earlyoom sends SIGKILL at the crossing, as jetsamd does).
///    earlyoom and the victim (`alloc 256 --hold` under the name `jbvictim`, a symlink to jetsam-testapp) start
///    together in a new PID namespace with its own /proc (`unshare --pid --fork --mount-proc`): earlyoom is its
///    PID 1, which it never picks, so the victim is the one process it can see and kill — nothing else on the
///    machine is ever at risk. Both are in a v1 memory cgroup of the bench's ("victim" cgroup), whose counter
///    shows the victim's memory coming back.
/// 2. Once the victim is full and earlyoom polls, the bench reads MemAvailable A1 and starts an allocator (in a
///    second cgroup, outside the namespace) at the given rate, told to mark the chunk at which MemAvailable
///    would fall to T; it goes on for ``driftChunks(rate:)`` more, so that the crossing happens even if the rest
///    of the machine gave memory back meanwhile.
/// 3. The crossing: MemAvailable is host-wide, and on a machine doing other work it drifts by tens of MiB a
///    second, which the allocator cannot know about; so the reference is the first reading at or below T of the
///    bench's 250 µs MemAvailable sampler (what earlyoom itself would read at that instant). The allocator's
///    mark is kept as a cross-check (its distance to the sampled crossing shows how much the host drifted).
/// 4. Kill time: when the bench reads earlyoom's `sending SIGKILL to process …` line (printed right before its
///    kill(2)). Memory back: the victim cgroup's counter dropped by 95 % of the victim's charge. Exit: the
///    victim's pidfd.
/// 5. earlyoom is SIGKILLed by pid (its namespace and anything left in it go with it), then the allocator.
/// Runs where the machine's own memory use made earlyoom fire before the allocator ran, or the threshold was
/// never crossed, are counted as failures and reported.
final class EarlyoomVictimBench {
  let binaries: Binaries
  let earlyoom: String
  let options: BenchOptions
  let marks: String
  let model: AllocatorModel
  private let victimCgroup: BenchCgroup
  private let allocatorCgroup: BenchCgroup
  private let victimPath: String
  private let meminfo: MemoryGauge
  private let victimUsage: MemoryGauge

  init(binaries: Binaries, options: BenchOptions, root: String, marks: String, model: AllocatorModel) throws {
    guard let earlyoom = binaries.earlyoom else {
      throw BenchError("earlyoom is not installed (scripts/install-deps.sh bench)")
    }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
      throw BenchError("/usr/bin/unshare is missing (util-linux)")
    }
    guard let victimCgroup = BenchCgroup(label: "eo-victim"), let allocatorCgroup = BenchCgroup(label: "eo-alloc")
    else {
      throw BenchError("no v1 memory hierarchy to put earlyoom's victim in (needed to see its memory come back)")
    }
    self.binaries = binaries
    self.earlyoom = earlyoom
    self.options = options
    self.marks = marks
    self.model = model
    self.victimCgroup = victimCgroup
    self.allocatorCgroup = allocatorCgroup
    victimPath = root + "/jbvictim"
    unlink(victimPath)
    guard symlink(binaries.testapp, victimPath) == 0 else {
      throw BenchError("symlink \(victimPath): \(String(cString: strerror(errno)))")
    }
    meminfo = try MemoryGauge.memAvailable()
    victimUsage = try MemoryGauge.cgroupUsage(victimCgroup.usagePath)
  }

  func stop() {
    victimCgroup.remove()
    allocatorCgroup.remove()
  }

  var victimCharge: Int64 { model.charge(chunks: options.victimMB) }

  /// MemAvailable left above the threshold when the allocator starts: enough that the machine's own drift does
  /// not reach the threshold first (at least 192 MiB), and at least ``JetsamdVictimBench/leadTime`` of allocation.
  static func lead(rate: Int) -> Int64 {
    max(Int64(192) << 20, Int64(Double(rate) * JetsamdVictimBench.leadTime) << 20)
  }

  /// Chunks allocated past the predicted crossing. MemAvailable can lag the allocator by a lot: on kernel 6.18
  /// free pages parked on the per-CPU page lists (up to `high` pages per CPU and zone, ~150 MiB per CPU here)
  /// are not counted as free, and allocations served from them do not lower MemAvailable at all. 320 MiB.
  static func driftChunks(rate: Int) -> Int { 320 }

  /// One unmeasured warm-up run.
  func prepare(rate: Int) throws {
    _ = try run(rate: rate, index: -1)
  }

  func measureOnce(rate: Int, index: Int) throws -> VictimRun {
    let result = try run(rate: rate, index: index)
    if options.verbose {
      func ms(_ value: Double?) -> String { value.map { String(format: "%7.2f", $0) } ?? "      -" }
      print(
        "  earlyoom \(rate) MiB/s run \(index): kill \(ms(result.toKill)) ms, exit \(ms(result.toExit)) ms, back \(ms(result.toMemoryBack)) ms, allocator mark vs sampled crossing \(ms(result.markError)) ms"
      )
    }
    return result
  }

  /// A command that joins `cgroup` and then execs `command`.
  private func inCgroup(_ cgroup: BenchCgroup, _ command: [String]) -> (String, [String]) {
    ("/bin/sh", ["-c", "echo 0 > \"$0\" && exec \"$@\"", cgroup.procsPath] + command)
  }

  private func run(rate: Int, index: Int) throws -> VictimRun {
    guard let a0 = meminfo.read() else { throw BenchError("cannot read MemAvailable") }
    let thresholdKiB = (a0 - victimCharge - Self.lead(rate: rate)) / 1024
    let threshold = thresholdKiB * 1024
    let script =
      "exec 0</dev/null; '\(victimPath)' alloc \(options.victimMB) --hold >/dev/null 2>&1 & "
      + "exec '\(earlyoom)' -M \(thresholdKiB),\(thresholdKiB) -r 0 --prefer '^jbvictim$'"
    let (program, arguments) = inCgroup(
      victimCgroup, ["/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "/bin/sh", "-c", script])
    let namespace = try ChildProcess(program, arguments, realTimeLog: true)
    var allocator: ChildProcess?
    var earlyoomPid: Int32?
    defer {
      // earlyoom is the namespace's init: SIGKILL to it ends the namespace, victim included.
      if let earlyoomPid { kill(earlyoomPid, SIGKILL) }
      namespace.stop(signal: SIGKILL, grace: 5)
      allocator?.stop(signal: SIGKILL, grace: 5)
      waitEmpty(victimCgroup)
      waitEmpty(allocatorCgroup)
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
    let watcher = try ExitWatcher(pid: victimPid)
    defer { watcher.cancel() }
    let victimBefore = victimUsage.settled()
    if namespace.log.first(where: { Self.isKillLine($0) }) != nil {
      throw BenchError("killed before the allocator started (the machine's own memory use reached the threshold)")
    }

    guard let a1 = meminfo.read() else { throw BenchError("cannot read MemAvailable") }
    let markAt = model.chunksToReach(a1 - threshold, from: 0)
    guard markAt >= 8 else {
      throw BenchError("killed before the allocator started (the machine's own memory use reached the threshold)")
    }
    let total = markAt + Self.driftChunks(rate: rate)
    let backLevel = victimBefore - victimCharge * 95 / 100
    let markPath = "\(marks)/earlyoom-\(rate)-\(index)"
    let sampler = MemorySampler(gauges: [
      try MemoryGauge.memAvailable(), try MemoryGauge.cgroupUsage(victimCgroup.usagePath),
    ])
    sampler.start()
    let launched = MonotonicTime.now()
    let (allocProgram, allocArguments) = inCgroup(
      allocatorCgroup,
      [
        binaries.testapp, "alloc", "\(total)", "--rate", "\(rate)", "--hold", "--mark-file", markPath, "--mark-at",
        "\(markAt)",
      ])
    do {
      allocator = try ChildProcess(allocProgram, allocArguments, realTimeLog: true)
    } catch {
      _ = sampler.stop()
      throw error
    }
    var mark: UInt64?
    var kill: LineLog.Line?
    var backSeen = false
    while MonotonicTime.seconds(since: launched) < 10 {
      if mark == nil { mark = JetsamdVictimBench.readMark(markPath) }
      if kill == nil { kill = namespace.log.first(after: launched) { Self.isKillLine($0) } }
      if !backSeen, kill != nil, let latest = sampler.latest, latest.values[1] >= 0, latest.values[1] <= backLevel {
        backSeen = true
      }
      if mark != nil, kill != nil, backSeen, watcher.exitTime != nil { break }
      if !namespace.isRunning { break }
      MonotonicTime.sleep(milliseconds: 2)
    }
    let samples = sampler.stop()
    unlink(markPath)
    guard let mark else { throw BenchError("the allocator wrote no mark (\(markPath))") }
    guard let kill else {
      throw BenchError("earlyoom did not kill within 10 s (MemAvailable never reached its threshold)")
    }
    guard kill.text.contains("SIGKILL"), kill.text.contains("jbvictim") else {
      throw BenchError("unexpected earlyoom action: \(kill.text)")
    }
    guard let crossing = MemorySampler.firstTime(in: samples, gauge: 0, where: { $0 <= threshold }) else {
      throw BenchError("earlyoom killed, but the sampler never saw MemAvailable at its threshold")
    }
    // A dip between two readings of the sampler can put earlyoom's kill slightly ahead of the sampled crossing;
    // anything more means the crossing was not the allocator's doing.
    guard kill.time + 1_000_000 >= crossing else {
      throw BenchError("killed before the sampled crossing (a dip of the machine's MemAvailable)")
    }
    var result = VictimRun(crossingSource: .sampledCounter, allocatorMark: mark, sampledCrossing: crossing)
    result.kill = kill.time
    result.exit = watcher.exitTime
    result.achievedRate = achievedRate(allocator?.log)
    result.memoryBack = MemorySampler.firstTime(in: samples, gauge: 1, after: crossing) { $0 <= backLevel }
    return result
  }

  /// earlyoom's line about a real kill, `sending SIGKILL to process 2 uid 0 "jbvictim": …` (not its start-up
  /// `sending SIGTERM when mem <= …` nor the debug-only `sending 0 (no-op signal)`).
  static func isKillLine(_ line: String) -> Bool {
    line.hasPrefix("sending SIGKILL to process") || line.hasPrefix("sending SIGTERM to process")
  }

  private func achievedRate(_ log: LineLog?) -> Double? {
    guard let line = log?.first(where: { $0.hasPrefix("done: ") }) else { return nil }
    let words = line.text.split(separator: " ")
    guard words.count >= 5, let mib = Double(words[1]), let seconds = Double(words[4]), seconds > 0 else { return nil }
    return mib / seconds
  }

  private func waitEmpty(_ cgroup: BenchCgroup) {
    let start = MonotonicTime.now()
    while !cgroup.processIDs().isEmpty && MonotonicTime.seconds(since: start) < 5 {
      MonotonicTime.sleep(milliseconds: 5)
    }
  }
}
