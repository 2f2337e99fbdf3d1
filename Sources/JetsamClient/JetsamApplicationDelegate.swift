/// The methods an app implements to follow its lifecycle, as UIKit's `UIApplicationDelegate`.
///
/// ``JetsamApplication/run(delegate:)`` calls them one at a time on the thread that called `run`, and sends
/// each event's acknowledgement when its method returns, so a method that does not return in time (the
/// deadlines in PROTOCOL.md) gets the app killed by the watchdog. Every method has an empty default.
public protocol JetsamApplicationDelegate {
  /// The app has launched. Restore saved state when `launchReason` is ``LaunchReason/afterExit(previousReason:previousState:time:)``.
  ///
  /// ``JetsamApplication/applicationState`` says where the launch goes (``ApplicationState/background`` for a
  /// launch into the background) and ``JetsamApplication/stateSummary`` holds the summary left last time.
  ///
  /// - Parameters:
  ///   - application: The app.
  ///   - launchReason: Why the app is starting.
  func applicationDidFinishLaunching(_ application: JetsamApplication, launchReason: LaunchReason)

  /// The app is moving from the background to the foreground.
  func applicationWillEnterForeground(_ application: JetsamApplication)

  /// The app is active in the foreground.
  func applicationDidBecomeActive(_ application: JetsamApplication)

  /// The app is about to leave the foreground: pause what needs the user.
  func applicationWillResignActive(_ application: JetsamApplication)

  /// The app is in the background: save state now. It may be suspended and then killed without another word.
  func applicationDidEnterBackground(_ application: JetsamApplication)

  /// The device's memory pressure rose: free what can be rebuilt. Not acknowledged.
  ///
  /// - Parameters:
  ///   - application: The app.
  ///   - level: How serious the pressure is.
  func applicationDidReceiveMemoryWarning(_ application: JetsamApplication, level: MemoryWarningLevel)

  /// The app is being terminated gracefully. ``JetsamApplication/run(delegate:)`` returns after this.
  func applicationWillTerminate(_ application: JetsamApplication)

  /// An event this client does not know, from a newer daemon; acknowledged when this returns.
  ///
  /// - Parameters:
  ///   - application: The app.
  ///   - event: The event, with all its fields.
  func application(_ application: JetsamApplication, didReceiveUnknownEvent event: JetsamEvent)
}

/// Empty defaults, so that a delegate implements only the events it cares about (each is still acknowledged).
extension JetsamApplicationDelegate {
  public func applicationDidFinishLaunching(_ application: JetsamApplication, launchReason: LaunchReason) {}
  public func applicationWillEnterForeground(_ application: JetsamApplication) {}
  public func applicationDidBecomeActive(_ application: JetsamApplication) {}
  public func applicationWillResignActive(_ application: JetsamApplication) {}
  public func applicationDidEnterBackground(_ application: JetsamApplication) {}
  public func applicationDidReceiveMemoryWarning(_ application: JetsamApplication, level: MemoryWarningLevel) {}
  public func applicationWillTerminate(_ application: JetsamApplication) {}
  public func application(_ application: JetsamApplication, didReceiveUnknownEvent event: JetsamEvent) {}
}
