import JetsamValues

/// The apps' last exits, a machine of its own: each app's last exit as recorded (its next launch's reason and what
/// that launch is told), and the ended ad-hoc apps in the order they ended, so that the longest ended are forgotten
/// first.
///
/// Whether an app is configured, ad hoc or running it reads from the lifecycle's ``AppTable``, never changing it;
/// the apps it forgets it names, for the policy to forget too.
struct ExitBook: Sendable {
  private var lastExits: [String: ExitRecord] = [:]
  /// Ad-hoc apps in the order they ended (an app may appear again after a later end).
  private var endedAdHocApps: [String] = []

  /// App `name`'s last exit, if any.
  func last(of name: String) -> ExitRecord? { lastExits[name] }

  /// Every app's last exit, sorted by app.
  var all: [ExitRecord] { lastExits.keys.sorted().compactMap { lastExits[$0] } }

  /// A record was decided: until the shell reports it written, it is what the app's next launch hears of.
  mutating func decided(_ record: ExitRecord) { lastExits[record.app] = record }

  /// A record is durable: it becomes the app's last exit, unless a later launch's is known already (false then).
  mutating func recorded(_ record: ExitRecord) -> Bool {
    if let known = lastExits[record.app], known.launch > record.launch { return false }
    lastExits[record.app] = record
    return true
  }

  /// Ad-hoc app `name` ended (or is known only from the records of earlier runs): past `remembered` ended apps,
  /// the longest ended are forgotten, and returned in that order. An app configured, or launched again since it
  /// ended (and maybe ended again, queued anew), is not its entry's to forget.
  mutating func ended(_ name: String, remembered: Int, apps: borrowing AppTable) -> [String] {
    endedAdHocApps.append(name)
    var forgotten: [String] = []
    while endedAdHocApps.count > remembered {
      let oldest = endedAdHocApps.removeFirst()
      if let index = apps.index(forKey: oldest),
        !apps.values[index].settings.adHoc || apps.values[index].state.isRunning
      {
        continue
      }
      if endedAdHocApps.contains(oldest) { continue }
      lastExits[oldest] = nil
      forgotten.append(oldest)
    }
    return forgotten
  }
}
