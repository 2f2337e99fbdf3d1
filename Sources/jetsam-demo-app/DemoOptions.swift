import Foundation

/// The demo app's command line.
struct DemoOptions: Equatable {
  /// How the app crashes, after launching, with `--crash`.
  enum Crash: String, CaseIterable {
    /// A write through a bad pointer: SIGSEGV.
    case segv
    /// SIGILL.
    case ill
    /// `abort()`: SIGABRT.
    case abort
    /// SIGTRAP, as a debugger breakpoint or a Swift trap on arm64.
    case trap
    /// A real Swift runtime trap: an array index out of range (`ud2`, SIGILL on x86_64; `brk`, SIGTRAP on arm64).
    case swiftTrap = "swift-trap"
  }

  /// The events `--hang-in` accepts.
  static let hangableEvents = [
    "didFinishLaunching", "willEnterForeground", "didBecomeActive", "willResignActive", "didEnterBackground",
    "memoryWarning", "willTerminate",
  ]

  var stateDirectory: String?
  var hangIn: String?
  var neverEndTask = false
  var leakMegabytesPerSecond: Double?
  var spin = false
  var crash: Crash?
  var forgetToSave = false
  var forgetToRestore = false
  var unreportedSave = false
  var feedValidFor: Duration?
  var staleOnResume = false
  var server: String?
  var keepConnection = false
  var help = false

  static let usage = """
    usage: jetsam-demo-app [--state-dir DIR] [misbehaviour…]

    A jetsamd app with state: a counter that counts every 100 ms while active and a document that grows by a
    line a second. It saves both at didEnterBackground (reporting stateDigest phase=saved and a stateSummary),
    restores them on a launch after an exit (reporting stateDigest phase=restored), and starts from zero on a
    fresh launch. It prints one line per event.

    options:
      --state-dir DIR      where the state file lives (default: the working directory)
      --hang-in EVENT      never return from EVENT's handler (\(hangableEvents.joined(separator: ", ")))
      --never-end-task     begin a background task at didEnterBackground and never end it
      --leak MB_PER_S      allocate and touch this much memory every second, never freeing it
      --spin               busy-loop on a thread of its own
      --crash KIND         crash shortly after launching: \(Crash.allCases.map(\.rawValue).joined(separator: ", "))
      --forget-to-save     skip saving at didEnterBackground but report the in-memory state's digest as saved
      --forget-to-restore  start from zero after an exit, reporting nothing restored
      --unreported-save    save at didEnterBackground but never report the saved digest
      --feed-valid-for S   its news feed is current for S seconds: it says so with the saved digest, fetches
                           again on a return to the foreground after longer than that, and reports the
                           digest it shows then (stateDigest phase=resumed)
      --stale-on-resume    with --feed-valid-for: never fetch again on a return (its refresh timer did not
                           run while it was suspended), showing the old feed
      --server HOST:PORT   hold a connection to this server (IPv4; default: $JETSAM_CHECK_SERVER, the lab's), saying
                           hello at launch and at each return: closed at didEnterBackground and opened again at
                           willEnterForeground, as a suspended app's sockets are defuncted
      --keep-connection    with a server: keep the connection across the background and reuse it after a return
                           (dead once it was defuncted at suspension), never reconnecting
      -h, --help           show this help
    """

  /// Parses the arguments (without the program name).
  ///
  /// - Throws: A message for the user when an option is unknown or its value is missing or invalid.
  init(arguments: [String]) throws(UsageError) {
    var remaining = arguments[...]
    func value(for option: String) throws(UsageError) -> String {
      guard let value = remaining.popFirst() else { throw UsageError("\(option) needs a value") }
      return value
    }
    while let argument = remaining.popFirst() {
      switch argument {
      case "--state-dir": stateDirectory = try value(for: argument)
      case "--hang-in":
        let event = try value(for: argument)
        guard Self.hangableEvents.contains(event) else { throw UsageError("--hang-in: unknown event \(event)") }
        hangIn = event
      case "--never-end-task": neverEndTask = true
      case "--leak":
        let text = try value(for: argument)
        guard let rate = Double(text), rate > 0, rate.isFinite else {
          throw UsageError("--leak: \(text) is not a positive number of megabytes per second")
        }
        leakMegabytesPerSecond = rate
      case "--spin": spin = true
      case "--crash":
        let text = try value(for: argument)
        guard let kind = Crash(rawValue: text) else { throw UsageError("--crash: unknown kind \(text)") }
        crash = kind
      case "--forget-to-save": forgetToSave = true
      case "--forget-to-restore": forgetToRestore = true
      case "--unreported-save": unreportedSave = true
      case "--feed-valid-for":
        let text = try value(for: argument)
        guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
          throw UsageError("--feed-valid-for: \(text) is not a number of seconds above 0 and at most 86400")
        }
        feedValidFor = .milliseconds(Int64((seconds * 1000).rounded()))
      case "--stale-on-resume": staleOnResume = true
      case "--server":
        let address = try value(for: argument)
        guard ServerConnection(address: address) != nil else {
          throw UsageError("--server: \(address) is not HOST:PORT")
        }
        server = address
      case "--keep-connection": keepConnection = true
      case "-h", "--help": help = true
      default: throw UsageError("unknown argument \(argument)")
      }
    }
    if staleOnResume && feedValidFor == nil { throw UsageError("--stale-on-resume needs --feed-valid-for") }
  }
}

/// A command-line mistake, reported with the usage and exit status 64 (`EX_USAGE`).
struct UsageError: Error, Equatable {
  let message: String

  init(_ message: String) {
    self.message = message
  }
}
