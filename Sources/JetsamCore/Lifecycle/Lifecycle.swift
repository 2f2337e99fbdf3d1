import JetsamValues

/// The lifecycle, a machine of its own: every configured app, its state and band, and the foreground slots.
///
/// It owns the table of apps (``AppTable``) and is the only one to add, remove or move an app: every state change
/// goes through ``move(_:to:at:)`` and comes out as a `stateChanged` action, which is the fact the composition
/// (``JetsamPolicy``) tells the monitors and turns into the app's lifecycle events. The other concerns change only
/// their own part of an app (its channel, commands, tasks, restoration, metrics) through the app's own handling
/// (`TrackedApp+…`), and the cross-app machines read the table through ``AppTable``'s read-only facts.
struct Lifecycle: Sendable {
  /// Every configured app by name.
  var apps = AppTable()
  /// The tunables in force.
  var rules: LifecycleRules
  /// Arrival counter for the foreground slots.
  private var foregroundArrivals = 0

  /// No app yet, and `rules` in force.
  init(rules: LifecycleRules) {
    self.rules = rules
  }

  /// The app called `name`, or `unknownApp`.
  func known(_ name: String) throws(PolicyError) -> TrackedApp {
    guard let app = apps[name] else { throw .unknownApp(name) }
    return app
  }

  /// Moves an app to `next`, keeping its times, band and grace deadline right, and says so.
  ///
  /// Every state change goes through here, so no illegal move can slip out.
  mutating func move(_ name: String, to next: LifecycleState, at: Instant) -> PolicyAction {
    let from = apps[name]!.state
    precondition(from.canMove(to: next), "jetsam policy bug: \(name) cannot move from \(from) to \(next)")
    let arrival = next.holdsForegroundSlot && !from.holdsForegroundSlot ? takeForegroundArrival() : nil
    let grace = next == .background ? rules.backgroundGrace.map { at.advanced(by: $0) } : nil
    // Changed in place: a copy of the app out of the dictionary and back costs a retain and a release of each
    // of its fields, which a batch suspend of 1,000 apps pays 1,000 times.
    let band = Self.update(&apps[name]!) { app in
      let oldBand = app.band
      if let arrival { app.foregroundArrival = arrival }
      // The stay away from the foreground: it starts when the app leaves it (or launches into the background)
      // and adds up the time suspended, for the events of its return.
      if from == .suspended {
        let suspended = at.duration(since: app.stateEnteredAt)
        app.process?.away?.suspended += suspended
      }
      if next == .background && (from == .foregroundInactive || from == .launching) {
        app.process?.away = AwayStint(since: at)
      }
      app.countStint(leavingAt: at)
      app.state = next
      app.stateEnteredAt = at
      // Only a real band change restarts the band clock: an audio app keeps its place in line across fg/bg.
      if app.band != oldBand { app.bandEnteredAt = at }
      // Each background stint has its own grace; leaving the background cancels it.
      app.process?.graceDeadline = grace
      if next != .suspended {
        app.process?.suspendDeadline = nil
        app.process?.suspendIncomplete = false
        // A lock check of a suspension the app has left (or not reached) has nothing left to decide.
        app.process?.lockCheck = nil
      }
      return app.band
    }
    return .stateChanged(app: name, from: from, to: next, band: band)
  }

  private static func update<Result>(_ app: inout TrackedApp, _ body: (inout TrackedApp) -> Result) -> Result {
    body(&app)
  }

  /// Moves a foreground app to the background, through foregroundInactive.
  mutating func leaveForeground(_ name: String, at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    if apps[name]?.state == .foregroundActive { actions.append(move(name, to: .foregroundInactive, at: at)) }
    actions.append(move(name, to: .background, at: at))
    return actions
  }

  /// Sends the earliest arrivals in the foreground to the background until `name` fits in the slots.
  mutating func makeRoomInForeground(for name: String, at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    while true {
      // Only an app with a process holds a slot (it gets one when spawned), so the others need not be visited.
      var others = 0
      var earliest: (name: String, arrival: Int)?
      apps.forEachWithProcess { app in
        guard app.name != name && app.state.holdsForegroundSlot else { return }
        others += 1
        if earliest.map({ app.foregroundArrival < $0.arrival }) ?? true {
          earliest = (app.name, app.foregroundArrival)
        }
      }
      guard others >= rules.foregroundSlots, let earliest else { return actions }
      actions += leaveForeground(earliest.name, at: at)
    }
  }

  /// Takes the next foreground arrival number: the app's place in line for the slots.
  mutating func takeForegroundArrival() -> Int {
    defer { foregroundArrivals += 1 }
    return foregroundArrivals
  }
}
