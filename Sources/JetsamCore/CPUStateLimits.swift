/// The CPU limits an app is held to in one state: a fatal one (reaching it kills the app, `cpuResourceLimit`) and
/// a non-fatal one (reaching it gives a CPU exception diagnostic only), either of them absent.
public struct CPUStateLimits: Sendable, Equatable, Codable {
  /// Reaching it: a CPU exception diagnostic, then the kill, at once (iOS does not wait for the window to end).
  public var fatal: CPUBudget?
  /// Reaching it: a CPU exception diagnostic, once per run over it; the app lives.
  public var nonFatal: CPUBudget?

  public init(fatal: CPUBudget? = nil, nonFatal: CPUBudget? = nil) {
    self.fatal = fatal
    self.nonFatal = nonFatal
  }

  /// No limit at all: the state is not watched.
  public var isEmpty: Bool { fatal == nil && nonFatal == nil }

  /// The windows, shortest first.
  var windows: [Duration] { [fatal?.window, nonFatal?.window].compactMap { $0 }.sorted() }

  public func scaled(by scale: Double) -> CPUStateLimits {
    CPUStateLimits(fatal: fatal?.scaled(by: scale), nonFatal: nonFatal?.scaled(by: scale))
  }
}
