import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit

/// Times jetsamd's reaction to a pressure threshold crossing: from the crossing to the victim's SIGKILL, and to
/// the victim's memory being back.
///
/// Method. One jetsamd runs with a 2 GiB device whose urgent level starts at 1 GiB available, i.e. when the
/// device cgroup's memory counter reaches U = 1 GiB (warning 128 MiB earlier, critical far below, so nothing
/// else ever happens). Each run:
/// 1. A victim app (`alloc 256 --hold`, launched in the background) fills up and is suspended: it is the only
///    app jetsam may kill at the urgent level. The daemon's balloon (`pressure allocate`, chosen per rate) holds
///    the rest of the device's memory, so that the counter ``leadTime`` × rate below U remains.
/// 2. The bench reads the counter C and works out (``AllocatorModel``, tuned run by run, see
///    ``learn(from:rate:)``) the chunk at which a new allocator's charge brings it to U. It starts its sampler
///    (the device counter every 250 µs) and a pidfd watch on the victim, then launches a foreground app
///    `alloc N --rate R --hold --mark-file F --mark-at K`: the allocator writes the CLOCK_MONOTONIC time at
///    which it reached the threshold itself (K = that chunk; N = K + 3, so it stops right after the crossing and
///    the counter then only moves with the victim).
/// 3. Kill time: the victim's exit record, `killSignalledNanoseconds` (jetsamd stamps it on CLOCK_MONOTONIC right
///    after pidfd_send_signal(SIGKILL) returns). Memory back: the first sample at which the device counter has
///    dropped by 95 % of the victim's charge. Exit: the victim's pidfd.
/// 4. The allocator is killed, and the next run starts from the same state.
/// The sampler's first reading past U is a cross-check of the allocator's mark: a run whose mark lies further
/// from it than ``VictimRun/markTolerance(rate:)`` (the allocator was preempted between its memset and its
/// stamp, or the mark fell on a neighbouring chunk) is left out and repeated.
final class JetsamdVictimBench {
  static let ram: Int64 = 2 << 30
  /// The urgent level starts with this much available, i.e. at a counter of `ram - urgentEnter`.
  static let urgentEnter: Int64 = 1 << 30
  /// How long the allocator runs before it crosses.
  static let leadTime = 0.3
  /// Chunks the allocator touches after the crossing chunk.
  static let extraChunks = 3

  let binaries: Binaries
  let options: BenchOptions
  let daemon: JetsamdInstance
  let marks: String
  private let client: ControlClient
  private let gauge: MemoryGauge
  private(set) var model = AllocatorModel(baseBytes: 0, bytesPerChunk: AllocatorModel.mebibyte)
  /// Bytes added to the counter before computing `--mark-at` (learned per rate, see ``learn(from:rate:)``).
  private var offsetBytes: Int64 = 0

  var threshold: Int64 { Self.ram - Self.urgentEnter }
  var victimCharge: Int64 { model.charge(chunks: options.victimMB) }

  init(binaries: Binaries, options: BenchOptions, root: String, marks: String) throws {
    self.binaries = binaries
    self.options = options
    self.marks = marks
    daemon = try JetsamdInstance(
      binaries: binaries, label: "kill", root: root,
      device: """
        ram: \(Self.ram),
        thresholds: {
          warning: { enter: \(Self.urgentEnter + (128 << 20)), clear: \(Self.urgentEnter + (192 << 20)) },
          urgent: { enter: \(Self.urgentEnter), clear: \(Self.urgentEnter + (64 << 20)) },
          critical: { enter: \(256 << 20), clear: \(320 << 20) },
        }
        """,
      extra: "suspend: { mode: \"signal\", backgroundGrace: null },")
    client = try daemon.client()
    gauge = try MemoryGauge.cgroupUsage(daemon.deviceUsagePath)
  }

  func stop() { daemon.stop() }

  // MARK: Calibration

  /// Measures the allocator's charge on the device counter: `alloc 0 --hold` for the base, `alloc 256 --hold`
  /// for the per-chunk charge. Fails when a MiB does not charge a MiB (an allocator the compiler optimized away).
  func calibrate() throws -> AllocatorModel {
    // A first launch charges the program's own pages to the device once; keep that out of the figures.
    try launchAndWait("warmup", chunks: 0)
    try killAndWait(["warmup"])
    let before = gauge.settled()
    try launchAndWait("calib0", chunks: 0)
    let afterBase = gauge.settled()
    try launchAndWait("calib", chunks: 256)
    let afterChunks = gauge.settled()
    try killAndWait(["calib0", "calib"])
    let perChunk = (afterChunks - afterBase) / 256
    guard perChunk >= AllocatorModel.mebibyte else {
      throw BenchError(
        "jetsam-testapp alloc 256 charged only \((afterChunks - afterBase) >> 10) KiB to the device: the allocator "
          + "does not touch its memory (a release build of jetsam-testapp whose malloc/memset the compiler removed?)")
    }
    model = AllocatorModel(baseBytes: max(0, afterBase - before), bytesPerChunk: perChunk)
    return model
  }

  // MARK: Runs

  /// Sizes the balloon for `rate` and makes two unmeasured warm-up runs (which also tune ``offsetBytes``).
  func prepare(rate: Int) throws {
    try sizeBalloon(rate: rate)
    offsetBytes = 0
    do {
      for warmup in [-2, -1] { learn(from: try run(rate: rate, index: warmup), rate: rate) }
    } catch {
      try? killAndWait(["victim", "alloc"])
      throw error
    }
  }

  /// One measured kill at `rate` MiB/s; leaves the daemon ready for the next one.
  func measureOnce(rate: Int, index: Int) throws -> VictimRun {
    do {
      let result = try run(rate: rate, index: index)
      learn(from: result, rate: rate)
      if options.verbose { report(result, rate: rate, index: index) }
      return result
    } catch {
      try? killAndWait(["victim", "alloc"])
      throw error
    }
  }

  /// Sizes the balloon so that a victim plus ``leadTime`` of allocation at `rate` reach the threshold.
  private func sizeBalloon(rate: Int) throws {
    var release = ControlRequest(verb: .pressure)
    release.action = "release"
    try client.sendAccepted(release)
    let empty = gauge.settled()
    let lead = max(Int64(64) << 20, Int64(Double(rate) * Self.leadTime) << 20)
    let balloon = threshold - lead - empty - victimCharge
    guard balloon > 0 else { throw BenchError("no room for a balloon at \(rate) MiB/s (device too small)") }
    var allocate = ControlRequest(verb: .pressure)
    allocate.action = "allocate"
    allocate.size = balloon
    try client.sendAccepted(allocate)
    try waitUntil("the balloon of \(balloon >> 20) MiB to fill", timeout: .seconds(10)) {
      (gauge.read() ?? 0) >= empty + balloon - (4 << 20)
    }
    _ = gauge.settled()
  }

  private func run(rate: Int, index: Int) throws -> VictimRun {
    let victimPid = try launchAndWait("victim", chunks: options.victimMB)
    try client.sendAccepted(ControlRequest(verb: .suspend, app: "victim"))
    let current = gauge.settled()
    let markAt = model.chunksToReach(threshold, from: current + offsetBytes)
    guard markAt >= 8 else { throw BenchError("only \(markAt) chunks below the threshold: device state drifted") }
    let total = markAt + Self.extraChunks
    let backLevel = current + model.charge(chunks: total) - victimCharge * 95 / 100
    let markPath = "\(marks)/jetsamd-\(rate)-\(index)"
    let watcher = try ExitWatcher(pid: victimPid)
    defer { watcher.cancel() }
    let sampler = MemorySampler(gauges: [try MemoryGauge.cgroupUsage(daemon.deviceUsagePath)])
    sampler.start()
    let launched = MonotonicTime.now()
    let command = [
      binaries.testapp, "alloc", "\(total)", "--rate", "\(rate)", "--hold", "--mark-file", markPath, "--mark-at",
      "\(markAt)",
    ]
    do {
      _ = try client.launch("alloc", command: command, background: false)
    } catch {
      _ = sampler.stop()
      throw error
    }
    var mark: UInt64?
    var backSeen = false
    let deadline = Double(total) / Double(rate) + 2
    while MonotonicTime.seconds(since: launched) < deadline {
      if mark == nil { mark = Self.readMark(markPath) }
      if !backSeen, let latest = sampler.latest, latest.values[0] <= backLevel { backSeen = true }
      if mark != nil, backSeen, watcher.exitTime != nil { break }
      MonotonicTime.sleep(milliseconds: 2)
    }
    let samples = sampler.stop()
    let achieved = achievedRate()
    // Only a victim that died before killAndWait (jetsamd's kill) has the record to read.
    let killRecord = Result { watcher.exitTime == nil ? nil : try victimRecord(pid: victimPid) }
    try killAndWait(["alloc", "victim"])
    unlink(markPath)
    let sampledCrossing = MemorySampler.firstTime(in: samples, gauge: 0) { $0 >= threshold }
    guard let mark else { throw BenchError("the allocator wrote no mark (\(markPath))") }
    guard sampledCrossing != nil else {
      // The model overestimated the allocator's charge by more than the extra chunks: aim two chunks further.
      offsetBytes -= 2 * model.bytesPerChunk
      throw BenchError(
        "the allocator stopped below the threshold (charge model off by more than \(Self.extraChunks) MiB)")
    }
    guard let record = try killRecord.get() else {
      throw BenchError("jetsamd did not kill the victim within 2 s of the crossing")
    }
    // Who ended it is the record's fact: a reason alone does not tell jetsam's kill from a requested one.
    guard record.cause.endedBy == .jetsam, record.cause.reason == .memoryPressure else {
      throw BenchError("the victim died of \(record.cause.terminationReason), not of jetsamd's kill under pressure")
    }
    guard let signalled = record.cause.killSignalledNanoseconds, let kill = UInt64(exactly: signalled) else {
      throw BenchError(
        "the victim's exit record has no killSignalledNanoseconds: this jetsamd does not stamp its SIGKILL yet, "
          + "so the kill instant is unknown")
    }
    var result = VictimRun(crossingSource: .allocatorMark, allocatorMark: mark, sampledCrossing: sampledCrossing)
    result.kill = kill
    result.exit = watcher.exitTime
    result.achievedRate = achieved
    result.memoryBack = MemorySampler.firstTime(in: samples, gauge: 0, after: mark) { $0 <= backLevel }
    if options.verbose, let urgent = daemon.log.first(after: launched, where: { $0.contains("→ urgent") }) {
      print(
        String(
          format: "  jetsamd: `→ urgent` line %.2f ms after the mark",
          MonotonicTime.milliseconds(from: mark, to: urgent.time)))
    }
    return result
  }

  /// Corrects the charge model by a fraction of a chunk after each run, so that marks land on the crossing chunk:
  /// the counter's per-CPU charge batching (up to 63 pages per CPU charged ahead) and the calibration's own noise
  /// shift the crossing by part of a chunk, which decides whether the crossing falls in the marked chunk or a
  /// neighbour. A mark `d` chunk periods after the sampled crossing means the allocator's real charge ran ahead of
  /// the model, so half of `d` chunks is added to ``offsetBytes`` (subtracted for a mark before the crossing).
  /// Gaps of more than three periods are preemptions of the allocator and teach nothing.
  private func learn(from run: VictimRun, rate: Int) {
    guard let error = run.markError else { return }
    let period = 1000 / (run.achievedRate ?? Double(rate))
    guard abs(error) <= 3 * period else { return }
    let chunks = Swift.max(-1.5, Swift.min(1.5, error / period))
    offsetBytes += Int64(0.5 * chunks * Double(model.bytesPerChunk))
    if options.verbose {
      print(
        String(
          format: "  jetsamd %d MiB/s: mark %+.2f ms from the sampled crossing; model offset now %+lld KiB", rate,
          error, offsetBytes >> 10))
    }
  }

  private func report(_ run: VictimRun, rate: Int, index: Int) {
    func ms(_ value: Double?) -> String { value.map { String(format: "%7.2f", $0) } ?? "      -" }
    print(
      "  jetsamd \(rate) MiB/s run \(index): kill \(ms(run.toKill)) ms, exit \(ms(run.toExit)) ms, back \(ms(run.toMemoryBack)) ms, mark error \(ms(run.markError)) ms"
    )
  }

  // MARK: Helpers

  /// The exit record jetsamd writes for the victim `pid`, read from its record log: it follows the victim's exit by
  /// the time jetsamd takes to reap it and fsync the record.
  private func victimRecord(pid: Int32) throws -> ExitRecord {
    var record: ExitRecord?
    try waitUntil("the exit record of victim pid \(pid)", timeout: .seconds(2)) {
      record = daemon.exitRecords().last { $0.app == "victim" && $0.pid == pid }
      return record != nil
    }
    return record!
  }

  /// The allocator's rate from the last `done: N MiB in S s` line of its log.
  private func achievedRate() -> Double? {
    guard let text = try? String(contentsOfFile: daemon.directory + "/state/logs/alloc.log", encoding: .utf8),
      let line = text.split(separator: "\n").last(where: { $0.hasPrefix("done: ") })
    else { return nil }
    let words = line.split(separator: " ")
    guard words.count >= 5, let mib = Double(words[1]), let seconds = Double(words[4]), seconds > 0 else { return nil }
    return mib / seconds
  }

  static func readMark(_ path: String) -> UInt64? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    return UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  /// Launches `alloc chunks --hold` in the background and waits until its own cgroup is charged its `chunks` MiB;
  /// returns its pid.
  ///
  /// Not "the device counter rose by `chunks` MiB": that left only the allocator's own overhead (~2 MiB: its
  /// malloc headers, page tables, libc) as margin against what the apps killed just before still give back after
  /// jetsamd reported them gone (page tables freed after an RCU grace period, per-CPU charge caches of their removed
  /// cgroups). A 1000 MiB/s run's allocator holds 300 MiB (``leadTime`` × rate, against 64 MiB at 200 MiB/s), and
  /// measured here the counter went on falling by ~0.7 MiB after each such run (0.2 after a 200 MiB/s one, once
  /// 1.6), leaving as little as 1.3 MiB; once the late frees outgrew the margin, the wait could never end.
  @discardableResult
  private func launchAndWait(_ name: String, chunks: Int) throws -> Int32 {
    let pid = try client.launch(name, command: [binaries.testapp, "alloc", "\(chunks)", "--hold"], background: true)
    let bytes = Int64(chunks) * AllocatorModel.mebibyte
    try waitUntil("\(name) to touch \(chunks) MiB", timeout: .seconds(10)) {
      (try client.apps()[name]?.measured.memoryBytes ?? 0) >= bytes
    }
    return pid
  }

  /// Kills the named apps (those still running) and waits until jetsamd reports them gone.
  private func killAndWait(_ names: [String]) throws {
    let apps = try client.apps()
    for name in names where apps[name]?.status.pid != nil {
      _ = try? client.send(ControlRequest(verb: .kill, app: name))
    }
    try waitUntil("\(names.joined(separator: ", ")) to be gone", timeout: .seconds(10)) {
      let apps = try client.apps()
      return names.allSatisfy { apps[$0]?.status.pid == nil }
    }
  }
}
