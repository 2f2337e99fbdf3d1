import Foundation
import JetsamConfig
import JetsamCore

/// An expected exit (`expect: { exit: … }`, and each of `exits`), its app among the scenario's.
extension ExitPattern: DecodableWithConfiguration {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case app, reason, state, launch, lockedFile
  }

  /// The pattern written at `decoder`'s key path, its app among `apps`.
  public init(from decoder: any Decoder, configuration apps: Set<String>) throws {
    let c = try decoder.container(knownKeys: CodingKeys.self)
    guard c.contains(.app) else { throw decoder.failure("app: missing") }
    self.init(app: try c.superDecoder(forKey: .app).appName(in: apps))
    reason = try c.readIfWritten(.reason) { try $0.exitReason() }
    state = try c.readIfWritten(.state) { state in
      let text = try String(from: state)
      guard let coarse = CoarseState(rawValue: text), coarse != .notRunning else {
        throw state.failure("\"\(text)\" is not a state an app dies in (foreground, background, suspended)")
      }
      return coarse
    }
    launch = try c.readIfWritten(.launch) { try $0.wholeNumber(in: 1...1_000_000) }
    lockedFile = try c.readIfWritten(.lockedFile) { path in
      let text = try String(from: path)
      guard text.hasPrefix("/") || text.hasPrefix("{") else {
        throw path.failure("expected an absolute path (as the record names it), or one from {tmpDir}")
      }
      return text
    }
  }
}
