import FoundationEssentials
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues

/// One diagnostic to take, as it runs on a helper thread: the stacks (within the budget), the MetricKit layout,
/// the durable write. Everything it needs travels with it.
struct CaptureJob: Sendable {
  var subject: DiagnosticsService.Subject
  var launch: Int
  var request: DiagnosticRequest
  var sequence: Int
  var host: HostDescription
  /// The stack tool's run, or why none could be started (nil and nil: call stacks are off).
  var run: ToolRun?
  var startProblem: String?
  var settings: DiagnosticsService.Settings
  var store: DiagnosticStore

  /// How many samples a request takes: one of a hang, several of a CPU or disk-write exception (what an app does
  /// over time is where most samples find it).
  static func samples(for request: DiagnosticRequest, settings: DiagnosticsService.Settings) -> Int {
    switch request {
    case .cpuException, .diskWriteException: settings.cpuSamples
    case .hang, .crash: 1
    }
  }

  var kind: DiagnosticKind {
    switch request {
    case .hang: .hang
    case .cpuException: .cpuException
    case .diskWriteException: .diskWriteException
    case .crash: .crash
    }
  }

  /// The process whose stacks are taken (a crash may be in another process of the app than its main one), and the
  /// thread the diagnostic is about.
  var target: (pid: Int32, thread: Int32) {
    if case .crash(let crash) = request { return (crash.pid, crash.tid) }
    return (subject.pid, subject.pid)
  }

  /// Takes, lays out and writes the diagnostic.
  func perform() -> Result<DiagnosticRecord, SystemError> {
    let time = AppSupervisor.timestamp()
    var metadata = DiagnosticMetaData(
      bundleIdentifier: subject.app, pid: target.pid, osVersion: host.osVersion,
      platformArchitecture: host.architecture, deviceType: host.name)
    var diagnostic = MetricKitDiagnostic(callStackTree: nil, diagnosticMetaData: metadata)
    let layout: CallStackTreeBuilder.Layout
    switch request {
    case .hang(let event, let seconds):
      metadata.hangDuration = Self.seconds(seconds)
      metadata.jetsamLifecycleEvent = event.rawValue
      // Lifecycle events are handled on the main thread (the clients run their delegates there).
      diagnostic.hangType = "Main Runloop Hang"
      layout = .outermostFirstPerThread
    case .cpuException(let usage):
      metadata.totalCPUTime = Self.seconds(usage.cpuSeconds)
      metadata.totalSampledTime = Self.seconds(usage.sampledSeconds)
      metadata.jetsamCPULimitPercent = usage.limitPercent
      metadata.jetsamCPUWindowSeconds = usage.windowSeconds
      metadata.jetsamAppState = usage.state.rawValue
      metadata.jetsamCPUFatal = usage.fatal
      metadata.jetsamCPUSummary = usage.summary
      layout = .outermostFirstMerged
    case .diskWriteException(let writes):
      metadata.writesCaused = Self.megabytes(writes.bytesWritten)
      metadata.jetsamBytesWritten = writes.bytesWritten
      metadata.jetsamWriteLimitBytes = writes.limitBytes
      metadata.jetsamWriteWindowSeconds = writes.windowSeconds
      metadata.jetsamWriteSampledSeconds = writes.sampledSeconds
      layout = .outermostFirstMerged
    case .crash(let crash):
      metadata.signal = crash.signal
      metadata.exceptionType = Self.exceptionType(signal: crash.signal)
      metadata.exceptionCode = Int64(crash.code)
      metadata.terminationReason = "Namespace SIGNAL, Code \(crash.signal) \(Self.signalName(crash.signal))"
      if crash.signal == SIGSEGV || crash.signal == SIGBUS {
        // Read while the process waits in the crash handler: its map is still there.
        metadata.virtualMemoryRegionInfo = Self.region(of: crash.address, pid: crash.pid)
      }
      layout = .innermostFirstPerThread
    }
    if let run {
      let started = MonotonicClock.now()
      let samples = Self.samples(for: request, settings: settings)
      let budget = settings.captureBudget + settings.cpuSampleInterval * (samples - 1)
      let (output, timedOut) = run.collect(budget: budget)
      var taken = StackSamples(parsing: output)
      if case .crash = request { taken.trimSignalHandler(of: target.thread) }
      metadata.jetsamCaptureMilliseconds = (MonotonicClock.now().seconds(since: started) * 1000).rounded()
      metadata.jetsamSamples = taken.samples.count
      if timedOut {
        metadata.jetsamCaptureError = "the capture ran out of its time budget (\(Self.seconds(budget.seconds)))"
      } else if let error = taken.error {
        metadata.jetsamCaptureError = error
      } else if taken.samples.isEmpty {
        metadata.jetsamCaptureError = "jetsam-stack ended without a sample"
      }
      if taken.samples.contains(where: { $0.contains { !$0.frames.isEmpty } }) {
        diagnostic.callStackTree = CallStackTreeBuilder.tree(taken, attributed: target.thread, layout: layout)
      }
    } else {
      metadata.jetsamCaptureError = startProblem ?? "call stacks are off (config diagnostics.callStacks)"
    }
    diagnostic.diagnosticMetaData = metadata
    let compact = time.filter { $0 != "-" && $0 != ":" }
    let record = DiagnosticRecord(
      id: "\(compact)-\(sequence)-\(subject.app)-\(kind.rawValue)", kind: kind, app: subject.app, pid: subject.pid,
      launch: launch, time: time, diagnostic: diagnostic)
    do {
      try store.write(record)
      return .success(record)
    } catch {
      return .failure(error)
    }
  }

  /// The Mach exception type MetricKit gives a crash of `signal` (EXC_BAD_ACCESS 1, EXC_BAD_INSTRUCTION 2,
  /// EXC_ARITHMETIC 3, EXC_BREAKPOINT 6, EXC_CRASH 10).
  static func exceptionType(signal: Int32) -> Int32 {
    switch signal {
    case SIGSEGV, SIGBUS: 1
    case SIGILL: 2
    case SIGFPE: 3
    case SIGTRAP: 6
    default: 10
    }
  }

  /// `Segmentation fault: 11`, as Apple's termination reasons name signals.
  static func signalName(_ signal: Int32) -> String {
    let name = strsignal(signal).map { String(cString: $0) } ?? "Signal"
    return "\(name): \(signal)"
  }

  /// The mapping `address` falls in, from /proc/PID/maps, as MetricKit's virtualMemoryRegionInfo says it.
  static func region(of address: UInt64, pid: Int32) -> String {
    let hex = "0x" + String(address, radix: 16)
    guard let maps = try? readTextFile("/proc/\(pid)/maps", capacity: 1 << 20) else { return "\(hex): no map to read" }
    for line in maps.split(separator: "\n") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      let bounds = fields.first?.split(separator: "-") ?? []
      guard bounds.count == 2, let start = UInt64(bounds[0], radix: 16), let end = UInt64(bounds[1], radix: 16),
        (start..<end).contains(address)
      else { continue }
      let what = fields.count > 5 ? fields[5...].joined(separator: " ") : "anonymous"
      return "\(hex) is in \(fields[0]) \(fields.count > 1 ? fields[1] : "") \(what)"
    }
    return "\(hex) is not in any region"
  }

  /// MetricKit's way of writing an amount of storage: `2,147.48 MB` (decimal megabytes, grouped thousands, up to two
  /// decimals).
  static func megabytes(_ bytes: Int64) -> String {
    let hundredths = (Double(bytes) / 10_000).rounded()
    let whole = Int64(hundredths / 100)
    let fraction = Int64(hundredths) % 100
    var digits = String(whole)
    var grouped = ""
    while digits.count > 3 {
      grouped = "," + digits.suffix(3) + grouped
      digits = String(digits.dropLast(3))
    }
    grouped = digits + grouped
    guard fraction != 0 else { return grouped + " MB" }
    let decimals = fraction % 10 == 0 ? String(fraction / 10) : (fraction < 10 ? "0" : "") + String(fraction)
    return grouped + "." + decimals + " MB"
  }

  /// MetricKit's way of writing a time: `9 sec` (with up to three decimals, for the short times of a lab).
  static func seconds(_ value: Double) -> String {
    value.formatted(decimals: 3).replacing(/\.?0+$/, with: "") + " sec"
  }
}

/// The host as MetricKit's metadata describes a device.
struct HostDescription: Sendable {
  /// `Linux 6.18.0-1-amd64`.
  var osVersion: String
  /// `x86_64`.
  var architecture: String
  /// The host's name.
  var name: String

  static func current() -> HostDescription {
    var names = utsname()
    uname(&names)
    func field<T>(_ value: T) -> String {
      withUnsafeBytes(of: value) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
    }
    return HostDescription(
      osVersion: "\(field(names.sysname)) \(field(names.release))", architecture: field(names.machine),
      name: field(names.nodename))
  }
}
