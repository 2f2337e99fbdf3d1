import JetsamWire

/// The lifecycle events an app receives on its channel (UIApplication's delegate calls): the protocol's event
/// names, shared with the clients through JetsamWire.
public typealias AppEventKind = AppEventName

extension AppEventKind {
  /// The event an app is told about when it moves between these states, if any (suspension sends nothing).
  static func forTransition(from: LifecycleState, to: LifecycleState) -> [AppEventKind] {
    switch (from, to) {
    case (.launching, .foregroundActive): [.didFinishLaunching, .didBecomeActive]
    case (.launching, .background): [.didFinishLaunching]
    case (.foregroundActive, .foregroundInactive): [.willResignActive]
    case (.foregroundInactive, .background): [.didEnterBackground]
    case (.background, .foregroundInactive): [.willEnterForeground]
    case (.foregroundInactive, .foregroundActive): [.didBecomeActive]
    default: []
    }
  }
}
