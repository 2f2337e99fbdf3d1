/// The inputs jetsamd takes from outside, each as one fuzz target: libFuzzer (`make fuzz`) feeds them random and
/// mutated bytes, and the regression tests feed them every file kept under `Tests/JetsamFuzzingTests/Inputs/<target>/` (seeds, and each
/// crasher ever found). A target passes an input when it returns: every path from these bytes must end in a value or
/// a precise error, never a trap (and the config and scenario targets trap on an error that names no place).
public enum FuzzTarget: String, CaseIterable, Sendable {
  /// One control-socket request line: parsed and checked as jetsamd's control server does, and its answer encoded.
  case controlRequest = "control-request"
  /// Bytes from an app's channel: framed into lines, decoded, and handed to the policy for a running app.
  case appLine = "app-line"
  /// A config file (JSON5): loaded, then every value jetsamd derives from it at start and at reload; every refusal
  /// must name a place in it.
  case config
  /// A lab scenario (JSON5), with the private jetsamd's config it holds; every refusal must name a place in it.
  case scenario
  /// The size and duration syntaxes (`256M`, `1.5s`) of the config and `jetsamctl`.
  case sizes
  /// Bytes from a client of the metrics listener (`metrics.listen`, jetsamd-metrics.socket): a request head,
  /// parsed as it arrives, and its answer.
  case httpRequest = "http-request"
  /// Messages on an app's crash socket, each from one of the app's processes or an outsider: parsed, checked
  /// against the kernel's word on the sender, and the reports taken handed to the policy.
  case crashLine = "crash-line"

  /// Runs one input through the target.
  public func run(_ bytes: UnsafeBufferPointer<UInt8>) {
    switch self {
    case .controlRequest: ControlRequestFuzzing.run(Array(bytes))
    case .appLine: AppLineFuzzing.run(Array(bytes))
    case .config: ConfigFuzzing.run(Array(bytes))
    case .scenario: ScenarioFuzzing.run(Array(bytes))
    case .sizes: SizeFuzzing.run(String(decoding: bytes, as: UTF8.self))
    case .httpRequest: HTTPRequestFuzzing.run(Array(bytes))
    case .crashLine: CrashLineFuzzing.run(Array(bytes))
    }
  }

  /// Runs one input through the target.
  public func run(_ bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { run($0) }
  }
}
