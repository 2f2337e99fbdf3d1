import CJetsamShim
import FoundationEssentials
import Glibc
import JetsamPlatform
import JetsamSpawning
import JetsamValues

/// jetsam-spawner's command line.
let usage = """
  Usage: jetsam-spawner [--socket PATH] [--foreground] [--verbose]

  jetsamd's spawner service: starts the apps jetsamd asks for (in their cgroups, as their users) and reaps them,
  so that jetsamd itself can run in a tighter sandbox than its apps. Under systemd it takes its socket from
  jetsam-spawner.socket; otherwise it listens at PATH (default /run/jetsam-spawner/spawner.sock). Only root may
  connect. Point jetsamd at it with the config's `spawnerSocket`.
  """

func fail(_ message: String) -> Never {
  let line = Array("jetsam-spawner: \(message)\n".utf8)
  _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
  exit(64)
}

var socketPath = "/run/jetsam-spawner/spawner.sock"
var logger = Logger(
  journalPrefix: ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil, program: "jetsam-spawner")
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--socket":
    guard let path = arguments.popFirst() else { fail("--socket needs a value\n\n\(usage)") }
    socketPath = path
  case "--foreground": logger.journalPrefix = false
  case "--verbose": logger.threshold = .debug
  case "-h", "--help":
    print(usage)
    exit(0)
  default: fail("unknown option \(argument)\n\n\(usage)")
  }
}

// SIGPIPE would end the service when a jetsamd goes away mid-send (sends use MSG_NOSIGNAL; this covers the rest).
signal(SIGPIPE, SIG_IGN)
do {
  // SIGTERM and SIGINT end the service; its children (the apps) keep running, as jetsamd's own stop ends them.
  // Blocked before the loop exists, so that its signalfd gets them, as SIGCHLD (continued children).
  let stopSignals = [Signal.terminate, .interrupt]
  _ = (stopSignals + [.childStatusChanged]).map(\.rawValue).withUnsafeBufferPointer {
    jetsam_block_signals($0.baseAddress, Int32($0.count))
  }
  let loop = try SpawnerLoop()
  let listener: FileDescriptor
  if let passed = ServiceNotification.takePassedDescriptor() {
    listener = FileDescriptor(rawValue: passed)
  } else {
    try FileManager.default.createDirectory(
      atPath: String(socketPath[..<(socketPath.lastIndex(of: "/") ?? socketPath.startIndex)]),
      withIntermediateDirectories: true)
    listener = try SpawnerService.listen(at: socketPath)
  }
  let service = try SpawnerService(loop: loop, listener: listener, log: logger)
  let stops = try stopSignals.map { signal in
    try loop.onSignal(signal) {
      logger.notice("stopping on \(signal); \(service.childCount) children keep running")
      loop.exit(code: 0)
    }
  }
  ServiceNotification.ready(status: "serving on \(socketPath)")
  logger.notice("serving on \(socketPath)")
  let code = try withExtendedLifetime(stops) { try loop.run() }
  exit(code)
} catch {
  fail("\(error)")
}
