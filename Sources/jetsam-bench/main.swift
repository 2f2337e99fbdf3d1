import CJetsamShim
import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamTestKit

// jetsam-bench (`make bench`): jetsamd against earlyoom 1.7 on this machine, in one run.
//
// 1. Kill latency: at each allocation rate, jetsamd and earlyoom runs alternate (so that whatever else the machine
//    does falls on both alike); see JetsamdVictimBench and EarlyoomVictimBench for the method.
// 2. Suspend and resume of many idle apps through the control socket (SuspendResumeBench), per suspend mode.
// 3. The daemon's RSS and CPU with those apps suspended, and an idle earlyoom's over the same window (IdleCost).
// 4. A well-behaved client's round trips while an app's `ready` command prints without stopping (`yes`), and its
//    round trips and jetsam kills while a firehose and hundreds of clients that never read their answers load the
//    control socket (LoadBench, ControlLoad).
// 5. A long life: start-up and `exits` pages on 100,000 exit records, another client's status meanwhile
//    (HistoryBench).
// 6. Diagnostics: a call-stack capture of a 20-thread app, another client's status round trips while an app floods
//    its crash socket with 1,000 forged reports, and the CPU monitor's cost with 200 watched apps (DiagnosticsBench).
// 7. The simulator's scale: jetsam-sim for a simulated day at 1,000, 10,000 and 100,000 apps, and the core's events
//    per second (SimBench).
// Everything the bench starts is stopped by pid and every cgroup and directory it creates is removed, also when it
// is interrupted (CleanupRegistry).

jetsam_stdout_line_buffered()
signal(SIGPIPE, SIG_IGN)

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("jetsam-bench: \(message)\n".utf8))
  CleanupRegistry.shared.runAll()
  exit(1)
}

func progress(_ message: String) { print("· " + message) }

let options: BenchOptions
do {
  options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  FileHandle.standardError.write(Data("jetsam-bench: \(error)\n".utf8))
  exit(64)
}
guard getuid() == 0 else { fail("needs root (it creates cgroups and runs jetsamd)") }
CleanupRegistry.shared.installSignalHandlers()

// The release binaries beside the bench's own executable (`.build/release`), never a debug build found elsewhere.
let binaries = Binaries.locate(override: options.binDirectory ?? Binaries.runningExecutableDirectory)
// The simulator's phase alone runs no jetsamd.
if options.phases != ["sim"], let missing = binaries.missing.first {
  fail("\(missing) is missing: build the release products first (make bench, or swift build -c release)")
}

let benchStart = MonotonicTime.now()
let root = NSTemporaryDirectory() + "jetsam-bench-\(getpid())"
// Mark files on tmpfs where there is one: the allocator fsyncs them.
let marks = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/jetsam-bench-\(getpid())" : root + "/marks"
for directory in [root, marks] {
  do {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  } catch {
    fail("cannot create \(directory): \(error)")
  }
}
CleanupRegistry.shared.add {
  try? FileManager.default.removeItem(atPath: marks)
  try? FileManager.default.removeItem(atPath: root)
}

let loadBefore = HostInfo.load
print("jetsam-bench: jetsamd \(binaries.directory) vs \(HostInfo.earlyoomVersion(binaries.earlyoom))")
print(
  "host: kernel \(HostInfo.kernel), \(HostInfo.cores) cores, \(HostInfo.memTotalBytes >> 20) MiB RAM, load \(loadBefore); "
    + "\(options.runs) runs per tool and rate at \(options.rates.map { "\($0)" }.joined(separator: ", ")) MiB/s")

var results = BenchResults(options: options)

// MARK: 1. Kill latency

if options.phases.contains("kills") {
  do {
    progress("starting jetsamd for the kill runs")
    let jetsamd = try JetsamdVictimBench(binaries: binaries, options: options, root: root, marks: marks)
    defer { jetsamd.stop() }
    let model = try jetsamd.calibrate()
    results.model = model
    progress("allocator charge: \(model)")
    var earlyoom: EarlyoomVictimBench?
    if options.earlyoom {
      do {
        earlyoom = try EarlyoomVictimBench(binaries: binaries, options: options, root: root, marks: marks, model: model)
      } catch {
        results.problems.append("earlyoom not measured: \(error)")
      }
    }
    defer { earlyoom?.stop() }
    for rate in options.rates {
      progress("kills at \(rate) MiB/s: \(options.runs) runs each, jetsamd and earlyoom alternating")
      var jetsamdSeries = VictimSeries(tool: "jetsamd", rate: rate)
      var earlyoomSeries = earlyoom.map { _ in VictimSeries(tool: "earlyoom", rate: rate) }
      var jetsamdReady = true
      do {
        try jetsamd.prepare(rate: rate)
      } catch {
        jetsamdReady = false
        jetsamdSeries.failures.append("warm-up: \(error)")
      }
      if let earlyoom {
        do {
          try earlyoom.prepare(rate: rate)
        } catch {
          earlyoomSeries?.failures.append("warm-up: \(error)")
        }
      }
      // Runs that fail, or whose crossing cannot be trusted, are repeated: up to three attempts per wanted run.
      for index in 0..<(3 * options.runs) {
        let jetsamdNeeded = jetsamdReady && jetsamdSeries.runs.count < options.runs
        let earlyoomNeeded = (earlyoomSeries?.runs.count ?? options.runs) < options.runs
        if !jetsamdNeeded && !earlyoomNeeded { break }
        if jetsamdNeeded {
          do {
            jetsamdSeries.add(try jetsamd.measureOnce(rate: rate, index: index))
          } catch {
            jetsamdSeries.failures.append("\(error)")
          }
        }
        if earlyoomNeeded, let earlyoom {
          do {
            earlyoomSeries?.add(try earlyoom.measureOnce(rate: rate, index: index))
          } catch {
            earlyoomSeries?.failures.append("\(error)")
          }
        }
      }
      results.kills.append((jetsamdSeries, earlyoomSeries))
    }
  } catch {
    results.problems.append("kill latency not measured: \(error)")
  }
}

// MARK: 2 and 3. Suspend/resume, idle cost

for (index, mode) in options.suspendModes.enumerated() where options.phases.contains("fleet") {
  do {
    progress("suspend/resume of \(options.apps) apps, suspend mode \(mode)")
    let fleet = try SuspendResumeBench(binaries: binaries, options: options, root: root, mode: mode)
    defer { fleet.stop() }
    results.suspendResume.append(try fleet.measure())
    guard index == 0 else { continue }
    var idleEarlyoom: IdleEarlyoom?
    if options.earlyoom, let earlyoom = binaries.earlyoom {
      do {
        idleEarlyoom = try IdleEarlyoom.start(earlyoom)
      } catch {
        results.problems.append("idle earlyoom not measured: \(error)")
      }
    }
    defer { idleEarlyoom?.stop() }
    progress(String(format: "idle cost over %.0f s (%d suspended apps)", options.idleSeconds, options.apps))
    MonotonicTime.sleep(milliseconds: 2000)
    let costs = IdleCost.measure(
      pids: [fleet.daemon.pid] + (idleEarlyoom.map { [$0.pid] } ?? []), seconds: options.idleSeconds)
    results.daemonIdle = costs[0]
    results.earlyoomIdle = costs.count > 1 ? costs[1] : nil
  } catch {
    results.problems.append("suspend/resume (\(mode)) not measured: \(error)")
  }
}

// MARK: 4. Under load

if options.phases.contains("load") {
  do {
    progress("control socket under load: a firehose and \(LoadBench.slowConnections) slow connections")
    let jetsamd = try JetsamdVictimBench(binaries: binaries, options: options, root: root, marks: marks)
    defer { jetsamd.stop() }
    _ = try jetsamd.calibrate()
    results.load = try LoadBench.measure(jetsamd, rate: options.rates[0], kills: max(3, options.runs / 2))
  } catch {
    results.problems.append("load phase not measured: \(error)")
  }
}

// MARK: 5. A long life

if options.phases.contains("history") {
  do {
    progress("a long life: jetsamd on \(HistoryBench.records) exit records")
    results.history = try HistoryBench.measure(binaries: binaries, root: root)
  } catch {
    results.problems.append("history phase not measured: \(error)")
  }
}

// MARK: 6. Diagnostics

if options.phases.contains("diagnostics") {
  do {
    progress("diagnostics: call stacks of a \(DiagnosticsBench.threads)-thread app")
    results.diagnostics = try DiagnosticsBench.measure(binaries: binaries, root: root)
  } catch {
    results.problems.append("diagnostics phase not measured: \(error)")
  }
}

// MARK: 7. The simulator

if options.phases.contains("sim") {
  do {
    progress(
      "the simulator: jetsam-sim for \(SimBench.duration) at \(SimBench.tinyApps) (\(SimBench.tinyRuns) times), "
        + "\(SimBench.smallApps) (twice) and \(SimBench.largeApps) apps"
    )
    results.sim = try SimBench.measure(binaries: binaries)
  } catch {
    results.problems.append("simulator phase not measured: \(error)")
  }
}

// MARK: Report

print("")
print(results.table().render())
print("")
for note in results.notes() { print("note: " + note) }
if let idle = results.daemonIdle {
  print(
    String(
      format: "note: jetsamd's RSS: %.1f MB of program and library pages (Swift runtime, Foundation) + %.1f MB of "
        + "its own (heap, stacks) with %d suspended apps", Double(idle.fileBytes) / 1_048_576,
      Double(idle.anonymousBytes) / 1_048_576, results.suspendResume.first?.apps ?? options.apps))
}
print(
  String(
    format: "note: load average before %@, after %@; bench took %.0f s", loadBefore, HostInfo.load,
    MonotonicTime.seconds(since: benchStart)))
for line in [
  "crossing = jetsamd: the allocator's own mark (device counter; runs whose mark the 250 µs sampler contradicts are",
  "  repeated); earlyoom: the sampler's first MemAvailable reading at its threshold (MemAvailable is host-wide and, on",
  "  this kernel, blind to pages parked on per-CPU free lists, so the allocator cannot know when it crosses).",
  "SIGKILL = jetsamd: the instant it stamps in the victim's exit record, just after the signal; earlyoom: its log",
  "  line, read by a real-time thread, printed just before. Memory back = the counter the victim is charged to",
  "  (jetsamd: the device; earlyoom: the victim's cgroup) down by 95 % of the victim. p90/p99 are nearest-rank:",
  "  with 20 runs the p99 is the worst run.",
  "batch = from the request written to the whole answer line read (1,000 apps' JSON, ~300 KB); decoding it is the",
  "  client's time and is not counted. The fleet's jetsamd runs on the normal scheduler (jetsamd's default) unless",
  "  --fleet-realtime asks for SCHED_FIFO.",
] {
  print("note: " + line)
}
CleanupRegistry.shared.runAll()
