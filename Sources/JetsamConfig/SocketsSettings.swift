import FoundationEssentials
import JetsamCore

/// The config's `sockets` (daemon-wide, and per app over it): what becomes of an app's network sockets when it is
/// suspended. A key an app's entry leaves out is the daemon-wide one.
public struct SocketsSettings: Sendable, Codable, Equatable {
  /// `defunct` (iOS: destroyed, the app sees `ECONNABORTED` after its return) or `keep`.
  public var atSuspension: SocketsAtSuspension?

  public init(atSuspension: SocketsAtSuspension? = nil) {
    self.atSuspension = atSuspension
  }

  /// iOS's rule: a suspended app's sockets are defuncted.
  public static let standard = SocketsSettings(atSuspension: .defunct)

  enum CodingKeys: String, CodingKey, CaseIterable { case atSuspension }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    atSuspension = try c.decodeChoiceIfPresent(SocketsAtSuspension.self, forKey: .atSuspension)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeIfPresent(atSuspension?.rawValue, forKey: .atSuspension)
  }

  /// These settings with what they leave out taken from `defaults`.
  public func over(_ defaults: SocketsSettings) -> SocketsSettings {
    SocketsSettings(atSuspension: atSuspension ?? defaults.atSuspension)
  }

  /// The rule for the policy (anything still unset is iOS's).
  public var rule: SocketsAtSuspension { over(.standard).atSuspension! }
}
