import JetsamSim

/// What the command line asks for.
struct SimOptions {
  var model = BuiltInModels.defaultName
  var apps: Int?
  var duration: Duration = .seconds(86_400)
  var seed: UInt64 = 1
  var json = false
  /// Where to write the HTML report, if anywhere.
  var html: String?
  var help = false
  var listModels = false

  /// A misuse of the command line: what is wrong, for exit 64.
  struct Misuse: Error {
    var message: String
  }

  static let usage = """
    usage: jetsam-sim [--model NAME|FILE.json5] [--apps N] [--duration D] [--seed N] [--json] [--html FILE]
           jetsam-sim --list-models | --help

    Drives jetsam's real policy with simulated time and a synthetic population (no processes), and reports kills by
    reason and state, cold launches, kills of apps with unsaved state, time at each pressure level and the apps
    resident over time. The same model, apps, duration and seed give the same figures.

      --model NAME|FILE   a built-in model (see --list-models; default \(BuiltInModels.defaultName)) or a JSON5 model file
      --apps N            apps in the population (default: the model's; at most 10000000). Each costs about 1.5 KB
                          of memory (one ended once, a few KB more); counting 2.5 KB each to be safe, 10000000 need
                          about 26 GB: a population this machine's free memory (or its cgroup's limit) cannot hold
                          is refused at once, exit 64
      --duration D        simulated time: a number with s, m, h or d (default 1d)
      --seed N            the seed of every random draw (default 1)
      --json              the report as JSON (figures only, no wall-clock time)
      --html FILE         also write the report as one self-contained HTML page (no network): resident apps over
                          time against the pressure levels, kills per time slice by reason, the tables; the text or
                          JSON still goes to standard output. The same seed writes the same page byte for byte.
      --list-models       the built-in models' names
      --help              this text

    exit status: 0 done, 64 misuse or a population that would not fit in memory (checked before the run), 65 a
                 model that is not valid, 66 a model file that cannot be read, 73 the --html file cannot be created
                 or written (checked before the run)
    """

  /// The options in `arguments` (without the program's name).
  static func parse(_ arguments: [String]) throws(Misuse) -> SimOptions {
    var options = SimOptions()
    var rest = arguments[...]
    func value(_ option: String) throws(Misuse) -> String {
      guard let value = rest.popFirst() else { throw Misuse(message: "\(option) needs a value") }
      return value
    }
    while let argument = rest.popFirst() {
      switch argument {
      case "--help", "-h": options.help = true
      case "--json": options.json = true
      case "--list-models": options.listModels = true
      case "--model": options.model = try value(argument)
      case "--html":
        let path = try value(argument)
        guard !path.isEmpty else { throw Misuse(message: "--html needs a file path") }
        options.html = path
      case "--apps":
        let text = try value(argument)
        guard let apps = Int(text), apps > 0, apps <= 10_000_000 else {
          throw Misuse(message: "--apps: \"\(text)\" is not a whole number from 1 to 10000000")
        }
        options.apps = apps
      case "--duration":
        let text = try value(argument)
        guard let duration = parseDuration(text) else {
          throw Misuse(
            message: "--duration: \"\(text)\" is not a duration (a positive number with s, m, h or d, e.g. 1d)")
        }
        options.duration = duration
      case "--seed":
        let text = try value(argument)
        guard let seed = UInt64(text) else { throw Misuse(message: "--seed: \"\(text)\" is not a whole number ≥ 0") }
        options.seed = seed
      default:
        throw Misuse(message: "unknown argument \"\(argument)\"")
      }
    }
    return options
  }

  /// `90s`, `30m`, `12h`, `1d` or plain seconds; at most 365 days.
  static func parseDuration(_ text: String) -> Duration? {
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
    var number = Substring(text)
    var scale = 1.0
    if let last = text.last, let unit = units[last] {
      number = number.dropLast()
      scale = unit
    }
    guard let value = Double(number), value.isFinite, value > 0, value * scale <= 365 * 86_400 else { return nil }
    return .milliseconds(Int64((value * scale * 1000).rounded()))
  }
}
