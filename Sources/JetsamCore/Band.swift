/// A jetsam priority band, in the manner of XNU's `JETSAM_PRIORITY_*`: lower bands die first.
///
/// An app's band follows its state (suspended → ``idle``, background → ``background``,
/// foreground → ``foreground``); a configured band lifts it (never lowers it), e.g. an ``audio`` app
/// stays above every background app even while it is in the background.
public struct Band: RawRepresentable, Comparable, Hashable, Sendable, Codable, CustomStringConvertible {
  public var rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// Suspended and idle apps (XNU `JETSAM_PRIORITY_IDLE`, 0).
  public static let idle = Band(rawValue: 0)
  /// Running in the background (XNU `JETSAM_PRIORITY_BACKGROUND`, 3).
  public static let background = Band(rawValue: 3)
  /// A background app the user would miss, e.g. a mail fetch (XNU `JETSAM_PRIORITY_MAIL`, 4).
  public static let mail = Band(rawValue: 4)
  /// The foreground app (XNU `JETSAM_PRIORITY_FOREGROUND`, 10).
  public static let foreground = Band(rawValue: 10)
  /// Playing audio or serving an accessory (XNU `JETSAM_PRIORITY_AUDIO_AND_ACCESSORY`, 12).
  public static let audio = Band(rawValue: 12)
  /// System-critical: killed last of all (XNU `JETSAM_PRIORITY_CRITICAL`, 19).
  public static let critical = Band(rawValue: 19)

  /// The bands a config, a request or the command line may name by number.
  public static let numbers = 0...20

  /// Config and CLI names of the bands, lowest first.
  public static let named: [(name: String, band: Band)] = [
    ("idle", .idle), ("background", .background), ("mail", .mail), ("foreground", .foreground),
    ("audio", .audio), ("critical", .critical),
  ]

  /// A band from its name (`idle`, `background`, `mail`, `foreground`, `audio`, `critical`) or a number 0–20.
  public init?(name: String) {
    if let match = Band.named.first(where: { $0.name == name }) {
      self = match.band
    } else if let value = Int(name), Band.numbers.contains(value) {
      self = Band(rawValue: value)
    } else {
      return nil
    }
  }

  /// The band an app in `state` sits in before any configured lift.
  public static func natural(for state: LifecycleState) -> Band {
    switch state {
    case .launching, .foregroundActive, .foregroundInactive: .foreground
    case .background: .background
    case .suspended, .notRunning, .terminated: .idle
    }
  }

  /// The band an app in `state` sits in with its configured lift: the natural band lifted by `floor`; an app with
  /// no process has no band to protect.
  static func effective(for state: LifecycleState, floor: Band?) -> Band {
    guard state.isRunning else { return .idle }
    return max(natural(for: state), floor ?? .idle)
  }

  public static func < (lhs: Band, rhs: Band) -> Bool { lhs.rawValue < rhs.rawValue }

  public var description: String {
    Band.named.first(where: { $0.band == self })?.name ?? String(rawValue)
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let number = try? container.decode(Int.self) {
      guard Band.numbers.contains(number) else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(number) is not a band (0-20)")
      }
      self.init(rawValue: number)
    } else {
      let name = try container.decode(String.self)
      guard let band = Band(name: name) else {
        throw DecodingError.dataCorruptedError(
          in: container,
          debugDescription: "\"\(name)\" is not a band (idle, background, mail, foreground, audio, critical, or 0-20)")
      }
      self = band
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}
