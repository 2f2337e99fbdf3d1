import JetsamCore

/// The kinds of diagnostic jetsamd keeps, as MetricKit names their arrays in a diagnostic payload.
public enum DiagnosticKind: String, Codable, Sendable, CaseIterable {
  case crash, hang, cpuException, diskWriteException

  /// The payload array this kind goes in: `crashDiagnostics`, `hangDiagnostics`, `cpuExceptionDiagnostics`,
  /// `diskWriteExceptionDiagnostics`.
  public var payloadKey: String { rawValue + "Diagnostics" }
}

/// One diagnostic as jetsamd keeps it (one file each in `<stateDirectory>/diagnostics`): which app and process it
/// is about, when, and the MetricKit-shaped diagnostic itself.
public struct DiagnosticRecord: Codable, Sendable, Equatable {
  /// Unique and sortable by time: `20261201T162205.123Z-APP-KIND`.
  public var id: String
  public var kind: DiagnosticKind
  public var app: String
  public var pid: Int32
  public var launch: Int
  /// RFC 3339 wall-clock time of the capture.
  public var time: String
  /// What MetricKit would deliver for it.
  public var diagnostic: MetricKitDiagnostic

  public init(
    id: String, kind: DiagnosticKind, app: String, pid: Int32, launch: Int, time: String,
    diagnostic: MetricKitDiagnostic
  ) {
    self.id = id
    self.kind = kind
    self.app = app
    self.pid = pid
    self.launch = launch
    self.time = time
    self.diagnostic = diagnostic
  }
}

/// A diagnostic in MetricKit's JSON layout (`MXCrashDiagnostic`, `MXHangDiagnostic`, `MXCPUExceptionDiagnostic`,
/// `MXDiskWriteExceptionDiagnostic`):
/// its version, call stack tree and metadata.
public struct MetricKitDiagnostic: Codable, Sendable, Equatable {
  public var version = "1.0.0"
  /// Hangs only: `Main Runloop Hang` when the main thread hung (the thread lifecycle events are handled on), as
  /// MetricKit says.
  public var hangType: String?
  /// Absent when no stack could be taken (``DiagnosticMetaData/jetsamCaptureError`` says why).
  public var callStackTree: CallStackTree?
  public var diagnosticMetaData: DiagnosticMetaData

  public init(callStackTree: CallStackTree?, diagnosticMetaData: DiagnosticMetaData) {
    self.callStackTree = callStackTree
    self.diagnosticMetaData = diagnosticMetaData
  }
}

/// A diagnostic's metadata: MetricKit's keys (those of `MXMetaData` and the kind's own), plus a few of jetsam's,
/// prefixed `jetsam` so that they never clash with Apple's.
public struct DiagnosticMetaData: Codable, Sendable, Equatable {
  // MXMetaData.
  /// The app's name (an app's identity here; MetricKit's bundle identifier).
  public var bundleIdentifier: String
  public var pid: Int32
  public var appBuildVersion: String
  public var appVersion: String
  /// `Linux 6.18.0`.
  public var osVersion: String
  /// `x86_64`, `aarch64`.
  public var platformArchitecture: String
  /// The host's name.
  public var deviceType: String
  public var regionFormat: String
  // Crash.
  public var signal: Int32?
  public var exceptionType: Int32?
  public var exceptionCode: Int64?
  public var terminationReason: String?
  /// For bad access: the mapping the faulting address falls in, or that it is in none.
  public var virtualMemoryRegionInfo: String?
  // Hang.
  /// `5.001 sec`: how long the handler had run when it was taken.
  public var hangDuration: String?
  // CPU exception.
  /// `48.2 sec` of CPU time used in `totalSampledTime`.
  public var totalCPUTime: String?
  public var totalSampledTime: String?
  // Disk-write exception.
  /// `1,073.74 MB`: what the app wrote within the window, as MetricKit writes a measurement of storage.
  public var writesCaused: String?
  // jetsam's.
  /// The lifecycle event whose handler hung.
  public var jetsamLifecycleEvent: String?
  /// The CPU limit that was reached, and the state it applied to.
  public var jetsamCPULimitPercent: Double?
  public var jetsamCPUWindowSeconds: Double?
  public var jetsamAppState: String?
  /// Whether the limit was the fatal one (the app was killed once the stacks were taken).
  public var jetsamCPUFatal: Bool?
  /// The figures as an iOS crash log words them: "48 seconds cpu time over 52 seconds (93% cpu average),
  /// exceeding limit of 80% cpu over 60 seconds".
  public var jetsamCPUSummary: String?
  /// The disk-write limit that was exceeded (bytes within the window), the bytes written (exactly) and how much of the
  /// window the monitor had sampled.
  public var jetsamWriteLimitBytes: Int64?
  public var jetsamWriteWindowSeconds: Double?
  public var jetsamBytesWritten: Int64?
  public var jetsamWriteSampledSeconds: Double?
  /// Why the call stacks are missing or partial (no permission, a debugger attached, the time budget ran out).
  public var jetsamCaptureError: String?
  /// How long the capture took, in milliseconds, and how many samples it took.
  public var jetsamCaptureMilliseconds: Double?
  public var jetsamSamples: Int?

  public init(
    bundleIdentifier: String, pid: Int32, osVersion: String, platformArchitecture: String, deviceType: String
  ) {
    self.bundleIdentifier = bundleIdentifier
    self.pid = pid
    self.appBuildVersion = ""
    self.appVersion = ""
    self.osVersion = osVersion
    self.platformArchitecture = platformArchitecture
    self.deviceType = deviceType
    self.regionFormat = "C"
  }
}

/// MetricKit's call stack tree (`MXCallStackTree`'s JSON). As MetricKit lays them out, a crash's tree has one
/// stack per thread whose root is the innermost frame (where it faulted) and whose `subFrames` are its callers;
/// hang and CPU exception trees are flame graphs: the root is the outermost frame (the thread's start), `subFrames`
/// are the functions it called, and samples that agree share frames, `sampleCount` saying how many went through each.
public struct CallStackTree: Codable, Sendable, Equatable {
  /// True: one call stack per thread (crashes, hangs); false: one stack merged over every thread (CPU exceptions).
  public var callStackPerThread = true
  public var callStacks: [CallStack]

  public init(callStacks: [CallStack]) { self.callStacks = callStacks }
}

/// One thread's stacks.
public struct CallStack: Codable, Sendable, Equatable {
  /// The thread the diagnostic is about (the faulting or hung thread); absent when the stacks are not per thread.
  public var threadAttributed: Bool?
  public var callStackRootFrames: [CallStackFrame]
  /// jetsam's: the thread's id and name.
  public var jetsamThreadID: Int32?
  public var jetsamThreadName: String?

  public init(threadAttributed: Bool?, callStackRootFrames: [CallStackFrame]) {
    self.threadAttributed = threadAttributed
    self.callStackRootFrames = callStackRootFrames
  }
}

/// One frame: MetricKit's keys (the binary by name and build id, the offset into it, the address, how many samples
/// went through it, and its callers), plus the symbol it falls in, which MetricKit leaves to offline symbolication.
public struct CallStackFrame: Codable, Sendable, Equatable {
  public var binaryName: String?
  /// The binary's ELF build id, in hex (Apple's binary UUID).
  public var binaryUUID: String?
  /// The address minus where the binary is loaded.
  public var offsetIntoBinaryTextSegment: UInt64?
  public var address: UInt64
  public var sampleCount: Int
  public var subFrames: [CallStackFrame]?
  /// jetsam's: the function (demangled, for Swift) and the offset into it, from the binary's symbol table.
  public var symbol: String?
  public var symbolOffset: UInt64?

  public init(
    binaryName: String?, binaryUUID: String?, offsetIntoBinaryTextSegment: UInt64?, address: UInt64,
    sampleCount: Int, symbol: String?, symbolOffset: UInt64?
  ) {
    self.binaryName = binaryName
    self.binaryUUID = binaryUUID
    self.offsetIntoBinaryTextSegment = offsetIntoBinaryTextSegment
    self.address = address
    self.sampleCount = sampleCount
    self.symbol = symbol
    self.symbolOffset = symbolOffset
  }
}

extension CallStackTree {
  /// The attributed thread's frames (or the merged stack's) from the root down the path most samples took.
  public var attributedPath: [CallStackFrame] {
    guard let stack = callStacks.first(where: { $0.threadAttributed == true }) ?? callStacks.first else { return [] }
    var path: [CallStackFrame] = []
    var level = stack.callStackRootFrames
    while let busiest = level.max(by: { $0.sampleCount < $1.sampleCount }) {
      path.append(busiest)
      level = busiest.subFrames ?? []
    }
    return path
  }
}
