/// The lifecycle events jetsamd sends apps (`event name=EVENT`, PROTOCOL.md, *Daemon to app*), UIApplication's
/// delegate calls. One list for jetsamd's policy (as `AppEventKind`) and the Swift client.
///
/// Listed in `Tests/Fixtures/wire-lines.json` (`vocabulary.events`), which the tests hold equal to ``allCases``.
public enum AppEventName: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable {
  case didFinishLaunching, willEnterForeground, didBecomeActive, willResignActive, didEnterBackground
  case memoryWarning, backgroundTaskWillExpire, willTerminate

  /// Whether the app must acknowledge the event (its handler returned), watched by a deadline.
  public var needsAcknowledgement: Bool {
    switch self {
    case .memoryWarning, .backgroundTaskWillExpire: false
    default: true
    }
  }
}
