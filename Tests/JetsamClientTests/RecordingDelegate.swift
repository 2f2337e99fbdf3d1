import Dispatch
import Synchronization

@testable import JetsamClient

/// A delegate that records the events it is given and the application state it saw, and can hold one handler
/// until the test releases it.
final class RecordingDelegate: JetsamApplicationDelegate, Sendable {
  private let records = Mutex<[String]>([])
  private let holdEvent: String?
  /// Raised when the held handler has been entered.
  let entered = Flag()
  private let release = DispatchSemaphore(value: 0)

  /// - Parameter holdEvent: The event whose handler waits for ``releaseHeldHandler()``.
  init(holding holdEvent: String? = nil) {
    self.holdEvent = holdEvent
  }

  /// What the delegate saw, one entry per call: `name` or `name:detail`, then `@state`.
  var calls: [String] { records.withLock { $0 } }

  func releaseHeldHandler() {
    release.signal()
  }

  private func record(_ application: JetsamApplication, _ name: String, _ detail: String? = nil) {
    records.withLock { $0.append((detail.map { "\(name):\($0)" } ?? name) + "@\(application.applicationState)") }
    if name == holdEvent {
      entered.raise()
      release.wait()
    }
  }

  func applicationDidFinishLaunching(_ application: JetsamApplication, launchReason: LaunchReason) {
    record(application, "didFinishLaunching", launchReason.isAfterExit ? "afterExit" : "fresh")
  }
  func applicationWillEnterForeground(_ application: JetsamApplication) {
    record(application, "willEnterForeground")
  }
  func applicationDidBecomeActive(_ application: JetsamApplication) { record(application, "didBecomeActive") }
  func applicationWillResignActive(_ application: JetsamApplication) { record(application, "willResignActive") }
  func applicationDidEnterBackground(_ application: JetsamApplication) {
    record(application, "didEnterBackground")
  }
  func applicationDidReceiveMemoryWarning(_ application: JetsamApplication, level: MemoryWarningLevel) {
    record(application, "memoryWarning", level.rawValue)
  }
  func applicationWillTerminate(_ application: JetsamApplication) { record(application, "willTerminate") }
  func application(_ application: JetsamApplication, didReceiveUnknownEvent event: JetsamEvent) {
    record(application, "unknown", event.name)
  }
}
