import JetsamWire
import Synchronization

/// A lifecycle event from jetsamd: `event id=N name=EVENT …`.
///
/// Events that need acknowledging (``requiresAcknowledgement``) must be acknowledged within their deadline, or
/// the app is killed by the watchdog. ``JetsamApplication/run(delegate:)`` acknowledges for you when a delegate
/// method returns; code iterating ``JetsamApplication/events`` calls ``acknowledge()`` itself.
public struct JetsamEvent: Sendable, CustomStringConvertible {
  /// What happened.
  public enum Kind: Equatable, Sendable {
    /// The app has launched; the reason says whether to restore saved state.
    case didFinishLaunching(LaunchReason)
    /// The app is moving from the background to the foreground.
    case willEnterForeground
    /// The app is active in the foreground.
    case didBecomeActive
    /// The app is about to leave the foreground.
    case willResignActive
    /// The app is in the background: save state now, it may be killed while suspended without another word.
    case didEnterBackground
    /// The device's memory pressure rose. Not acknowledged.
    case memoryWarning(MemoryWarningLevel)
    /// A background task's time is nearly up: end it. Not acknowledged.
    case backgroundTaskWillExpire(BackgroundTaskIdentifier)
    /// The app is being terminated gracefully (never sent before a jetsam kill).
    case willTerminate
    /// An event this client does not know (from a newer daemon); its name.
    case unknown(String)

    /// Whether the daemon expects `ack event=N` for this event.
    ///
    /// Unknown events are acknowledged: a needless ack costs at most an `error` line, a missing one a kill.
    public var requiresAcknowledgement: Bool {
      switch self {
      case .memoryWarning, .backgroundTaskWillExpire: false
      default: true
      }
    }
  }

  /// The event's number within this launch, counting up from 1.
  public let id: Int
  /// The protocol's `name=`, e.g. `didEnterBackground`.
  public let name: String
  /// What happened, with the fields that matter parsed.
  public let kind: Kind
  /// Every field of the line, decoded (including `id` and `name`), for fields this client does not parse.
  ///
  /// For `backgroundTaskWillExpire`, `taskName` holds the task's name.
  public let fields: [String: String]
  /// `willEnterForeground`, and the `didBecomeActive` after it: how long the app was away from the foreground
  /// (`backgroundFor=`), and how much of that it was suspended (`suspendedFor=`), during which none of its
  /// timers ran. Nil on other events.
  public let backgroundDuration: Duration?
  public let suspendedDuration: Duration?
  private let acknowledgement: Acknowledgement?

  /// The value of the line's field with this key.
  func field(_ field: AppProtocolField) -> String? { fields[field.rawValue] }

  /// Whether ``acknowledge()`` must be called (and within the event's deadline).
  public var requiresAcknowledgement: Bool { kind.requiresAcknowledgement }

  /// Tells jetsamd the handling of this event has finished: `ack event=N`.
  ///
  /// Sent at most once however often it is called, and never for events that need no acknowledgement.
  public func acknowledge() {
    guard requiresAcknowledgement else { return }
    acknowledgement?.send()
  }

  /// The event as `name id=N key=value …`, for logs.
  public var description: String {
    let shown = [AppProtocolField.id, .name].map(\.rawValue)
    let extra = fields.filter { !shown.contains($0.key) }.sorted { $0.key < $1.key }
    return (["\(name) id=\(id)"] + extra.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
  }

  /// Reads an `event` line.
  ///
  /// - Parameters:
  ///   - line: A parsed line whose word is `event`.
  ///   - acknowledge: Sends `ack event=N`; called at most once.
  /// - Returns: `nil` if the line lacks a numeric `id` or a `name`.
  init?(line: AppLine, acknowledge: @escaping @Sendable (Int) -> Void) {
    guard let id = line.integer(.id), let name = line[.name] else { return nil }
    self.id = id
    self.name = name
    var fields = line.fieldDictionary
    // `backgroundTaskWillExpire` carries the task's name in a second `name=` after the event's own; it is kept
    // as `taskName` (unless the daemon sends `taskName=` itself).
    let names = line.fields.filter { $0.key == AppProtocolField.name.rawValue }
    let taskName = AppProtocolField.taskName.rawValue
    if fields[taskName] == nil, names.count > 1 { fields[taskName] = names[1].value }
    self.fields = fields
    self.kind = Self.kind(name: name, line: line)
    backgroundDuration = line.duration(.backgroundFor)
    suspendedDuration = line.duration(.suspendedFor)
    self.acknowledgement = Acknowledgement { acknowledge(id) }
  }

  private static func kind(name: String, line: AppLine) -> Kind {
    switch AppEventName(rawValue: name) {
    case .didFinishLaunching:
      .didFinishLaunching(
        LaunchReason(
          reason: line[.reason], previousReason: line[.previousReason], previousState: line[.previousState],
          time: line[.previousTime]))
    case .willEnterForeground: .willEnterForeground
    case .didBecomeActive: .didBecomeActive
    case .willResignActive: .willResignActive
    case .didEnterBackground: .didEnterBackground
    case .memoryWarning: .memoryWarning(line[.level].map(MemoryWarningLevel.init(rawValue:)) ?? .warning)
    case .backgroundTaskWillExpire:
      .backgroundTaskWillExpire(line.integer(.task).map(BackgroundTaskIdentifier.init) ?? .invalid)
    case .willTerminate: .willTerminate
    case nil: .unknown(name)
    }
  }
}

/// Sends an event's ack once, however many copies of the event call it.
private final class Acknowledgement: Sendable {
  private let sent = Atomic<Bool>(false)
  private let action: @Sendable () -> Void

  init(_ action: @escaping @Sendable () -> Void) {
    self.action = action
  }

  func send() {
    guard sent.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
      return
    }
    action()
  }
}
