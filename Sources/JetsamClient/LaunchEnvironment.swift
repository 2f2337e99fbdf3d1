import JetsamWire

/// What jetsamd puts in an app's environment at launch (PROTOCOL.md, *The environment at launch*).
struct LaunchEnvironment: Equatable, Sendable {
  /// `JETSAM_FD`: the channel's descriptor.
  var descriptor: Int32
  /// `JETSAM_PROTOCOL`.
  var protocolVersion: Int?
  /// `JETSAM_APP`.
  var appName: String?
  /// `JETSAM_LAUNCH`: 1 for the first launch, then 2, …
  var launchNumber: Int?
  /// `JETSAM_LAUNCH_REASON` with `JETSAM_PREVIOUS_EXIT`.
  var launchReason: LaunchReason
  /// `JETSAM_STATE_SUMMARY`, decoded.
  var stateSummary: String?

  /// Reads the environment.
  ///
  /// - Parameter environment: The process environment.
  /// - Throws: ``JetsamClientError/notLaunchedByJetsam`` without `JETSAM_FD`,
  ///   ``JetsamClientError/invalidDescriptor(_:)`` if it is not a descriptor number.
  init(_ environment: [String: String]) throws(JetsamClientError) {
    guard let text = environment[.channelDescriptor] else { throw .notLaunchedByJetsam }
    guard let descriptor = Int32(text), descriptor >= 0 else {
      throw .invalidDescriptor("\"\(text)\" is not a descriptor number")
    }
    self.init(descriptor: descriptor, details: environment)
  }

  /// Reads everything but `JETSAM_FD`, for a channel whose descriptor is already known.
  ///
  /// - Parameters:
  ///   - descriptor: The channel's descriptor.
  ///   - environment: The variables to read; missing ones are left unknown.
  init(descriptor: Int32, details environment: [String: String]) {
    self.descriptor = descriptor
    protocolVersion = environment[.protocolVersion].flatMap { Int($0) }
    appName = environment[.app]
    launchNumber = environment[.launch].flatMap { Int($0) }
    let previous = environment[.previousExit].flatMap { try? AppLine.parseFields($0) } ?? []
    func field(_ field: AppProtocolField) -> String? { previous.first { $0.key == field.rawValue }?.value }
    launchReason = LaunchReason(
      reason: environment[.launchReason], previousReason: field(.reason), previousState: field(.state),
      time: field(.time))
    // A summary that is not valid percent-encoding is kept as it is rather than lost.
    stateSummary = environment[.stateSummary].map { AppLine.percentDecode($0[...]) ?? $0 }
  }
}

extension [String: String] {
  /// The value of one of the variables jetsamd starts apps with.
  fileprivate subscript(variable: AppEnvironmentVariable) -> String? { self[variable.rawValue] }
}
