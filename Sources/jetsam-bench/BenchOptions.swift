import Foundation

/// The bench's command line.
struct BenchOptions: Sendable {
  /// Measured kills per tool and allocation rate.
  var runs = 20
  /// Allocation rates of the foreground allocator, in MiB/s.
  var rates = [200, 1000]
  /// The victim's size in MiB.
  var victimMB = 256
  /// Apps for the suspend/resume and idle-cost phases: the fleet the batch and idle targets are set for.
  var apps = 1_000
  /// The fleet jetsamd's `daemonRealtimePriority` (`SCHED_FIFO`); nil: jetsamd's default, the normal scheduler, which
  /// the batch target is set for.
  var fleetRealtimePriority: Int?
  /// How long the idle daemon's CPU is sampled.
  var idleSeconds = 10.0
  /// Suspend modes whose suspend/resume times are measured (the first one is also used for the idle cost).
  var suspendModes = ["signal"]
  /// What to measure: `kills` (kill latency), `fleet` (suspend/resume and idle cost), `load` (a client's round
  /// trips and kills while other clients misbehave on the control socket), `history`, `diagnostics`, `sim` (the
  /// simulator's scale).
  var phases: Set<String> = Self.allPhases
  static let allPhases: Set<String> = ["kills", "fleet", "load", "history", "diagnostics", "sim"]
  /// Whether to run earlyoom at all.
  var earlyoom = true
  /// Print every run.
  var verbose = false
  /// Where jetsamd, jetsamctl and jetsam-testapp are (default: beside jetsam-bench).
  var binDirectory: String?

  /// The target for suspending, and for resuming, every app with one batch request: 20 ms for up to 200 apps,
  /// 50 ms for a larger fleet (the target set for 1,000 apps).
  var batchTargetMilliseconds: Double { apps <= 200 ? 20 : 50 }

  /// The names of the idle apps of the suspend/resume phase.
  var appNames: [String] { (0..<apps).map { String(format: "idle%03d", $0) } }

  static let usage = """
    Usage: jetsam-bench [options]

    Measures jetsamd on this machine, side by side with earlyoom 1.7: time from a memory threshold crossing
    (stamped by the allocating process) to the victim's SIGKILL and to its memory being back, at two allocation
    rates; suspend and resume of many apps; the daemon's RSS and CPU while it supervises idle apps.
    Needs root (cgroups). Takes about 4–5 minutes with the defaults, and the simulator phase up to 3 more.

    Options:
      --runs N            measured kills per tool and rate (default 20)
      --rates A,B         allocation rates in MiB/s (default 200,1000)
      --victim-mb N       the victim's size (default 256)
      --apps N            apps for suspend/resume and idle cost (default 1000, about a minute to launch;
                          the batch target is 20 ms up to 200 apps, 50 ms above)
      --fleet-realtime P  run the fleet's jetsamd at SCHED_FIFO priority P (daemonRealtimePriority);
                          default: the normal scheduler, jetsamd's default
      --idle-seconds S    CPU sampling window of the idle daemon (default 10)
      --suspend-modes M   signal, freezer or signal,freezer (default signal, jetsamd's default; the first
                          one is used for the idle cost)
      --phases P          any of kills, fleet, load, history, diagnostics, sim, comma-separated (default all);
                          sim alone needs no jetsamd, only the release jetsam-sim
      --no-earlyoom       measure jetsamd only
      --quick             smoke run: 3 runs per rate, 50 apps, 3 s idle window
      --bin-dir DIR       where the release jetsamd, jetsamctl and jetsam-testapp are
      --verbose           print every run
      -h, --help          this help
    """

  static func parse(_ arguments: [String]) throws -> BenchOptions {
    var options = BenchOptions()
    var rest = arguments[...]
    func value(_ name: String) throws -> String {
      guard let value = rest.popFirst() else { throw BenchError("\(name) needs a value\n\n\(usage)") }
      return value
    }
    func integer(_ name: String) throws -> Int {
      let text = try value(name)
      guard let number = Int(text), number > 0 else {
        throw BenchError("\(name): \"\(text)\" is not a positive number")
      }
      return number
    }
    while let argument = rest.popFirst() {
      switch argument {
      case "--runs": options.runs = try integer(argument)
      case "--fleet-realtime": options.fleetRealtimePriority = try integer(argument)
      case "--rates":
        let text = try value(argument)
        let rates = text.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
        guard !rates.isEmpty else { throw BenchError("--rates: \"\(text)\" is not a list of MiB/s") }
        options.rates = rates
      case "--victim-mb": options.victimMB = try integer(argument)
      case "--apps": options.apps = try integer(argument)
      case "--idle-seconds": options.idleSeconds = Double(try integer(argument))
      case "--suspend-modes":
        let modes = try value(argument).split(separator: ",").map(String.init)
        guard !modes.isEmpty, modes.allSatisfy({ $0 == "signal" || $0 == "freezer" }) else {
          throw BenchError("--suspend-modes: use signal, freezer or both")
        }
        options.suspendModes = modes
      case "--phases":
        let phases = Set(try value(argument).split(separator: ",").map(String.init))
        guard !phases.isEmpty, phases.isSubset(of: allPhases) else {
          throw BenchError("--phases: use any of \(allPhases.sorted().joined(separator: ", "))")
        }
        options.phases = phases
      case "--no-earlyoom": options.earlyoom = false
      case "--quick":
        options.runs = 3
        options.apps = 50
        options.idleSeconds = 3
        options.suspendModes = ["signal"]
      case "--bin-dir": options.binDirectory = try value(argument)
      case "--verbose": options.verbose = true
      case "-h", "--help":
        print(usage)
        exit(0)
      default: throw BenchError("unknown option \(argument)\n\n\(usage)")
      }
    }
    return options
  }
}
