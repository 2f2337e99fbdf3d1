import JetsamValues

/// A jetsam kill waiting for its victim to exit.
struct JetsamKill: Sendable {
  var app: String
  var pid: Int32
  /// After this the victim no longer blocks the next kill.
  var deadline: Instant
}

/// Jetsam, a machine of its own: the pressure level (measured from samples with the thresholds' hysteresis, or
/// forced by a user), the memory available, and the loop's hold on itself (one victim at a time, and a fresh
/// sample after each victim's exit before it judges again).
///
/// It reads the apps' kill order off the lifecycle's ``AppTable`` (its ordered index of candidates), never changing
/// it; which victim is next, whether it may be killed at the level in force and what the kill records of the
/// pressure are its answers, which the policy carries out.
struct JetsamLoop: Sendable {
  /// The level measured from the samples.
  private(set) var measuredLevel: PressureLevel = .normal
  /// The last sample of memory available to the device, if any arrived yet.
  private(set) var availableBytes: Int64?
  /// A level forced by a user, overriding the measured level; nil when measurements rule.
  private(set) var forcedLevel: PressureLevel?
  /// The kill waiting for its victim to exit, if any.
  private(set) var pendingKill: JetsamKill?
  /// Set when a victim exits: the last sample predates the memory it gave back, so jetsam waits for a fresh one
  /// before choosing again.
  private var owesFreshSample = false

  /// The level in force: the forced level if any, else the measured one.
  var level: PressureLevel { forcedLevel ?? measuredLevel }

  /// When the pending kill stops holding the loop back.
  var nextDeadline: Instant? { pendingKill?.deadline }

  /// Whether the loop may choose a victim now: the level calls for it, no kill is pending, and the last sample shows
  /// the last victim's memory back. While a level is forced no sample can change it, so waiting for one would stall
  /// the loop.
  var mayChoose: Bool { level >= .urgent && pendingKill == nil && (!owesFreshSample || forcedLevel != nil) }

  /// A sample of the memory available: the level follows it, and the loop may judge again.
  mutating func sampled(available: Int64, thresholds: PressureThresholds) {
    availableBytes = available
    measuredLevel = thresholds.level(available: available, current: measuredLevel)
    owesFreshSample = false
  }

  /// A user forces `forced` (nil: measurements rule again).
  mutating func force(_ forced: PressureLevel?) { forcedLevel = forced }

  /// A `levelChanged` action if the level in force is no longer `before`.
  func levelChange(from before: PressureLevel) -> [PolicyAction] {
    guard level != before else { return [] }
    return [.levelChanged(from: before, to: level, available: availableBytes ?? 0)]
  }

  /// The app jetsam kills next at the level in force, if any: the first of the running apps no kill was asked for
  /// (apps already being killed, including a victim past its kill timeout, are never chosen again), if its band
  /// may die at this level. The bands that may die are the lowest ones, so if the first may not, nobody may.
  ///
  /// The same choice as ``VictimSelection/victim(among:level:)`` over every app, read off the ordered index.
  func victim(among apps: borrowing AppTable) -> VictimKey? {
    guard let first = apps.candidates.first, VictimSelection.mayKill(band: first.band, at: level) else { return nil }
    return first
  }

  /// Whether jetsam has done what the level asks: no kill pending, and no app left that it would kill at this level.
  func isSettled(among apps: borrowing AppTable) -> Bool {
    guard level >= .urgent else { return true }
    return pendingKill == nil && victim(among: apps) == nil
  }

  /// The pressure a kill decided now records.
  var pressure: DevicePressure { DevicePressure(level: level, availableBytes: availableBytes ?? 0) }

  /// Every running app at `at`, in kill order (XNU's jetsam snapshot; the shell fills in the memory).
  func snapshot(of apps: borrowing AppTable, at: Instant) -> [SnapshotEntry] {
    // Walked off the ordered index: already in kill order, no sort.
    apps.running.elements.compactMap { key in
      guard let index = apps.index(forKey: key.name), let pid = apps.values[index].process?.pid else { return nil }
      return SnapshotEntry(
        name: key.name, pid: pid, band: key.band, state: apps.values[index].state.coarse,
        secondsInBand: at.seconds(since: key.bandEnteredAt))
    }
  }

  /// A victim's kill went out: the loop holds until it exits, or until `deadline`.
  mutating func killing(_ app: String, pid: Int32, until deadline: Instant) {
    pendingKill = JetsamKill(app: app, pid: pid, deadline: deadline)
  }

  /// App `app`'s process `pid` exited: if it was the victim, its memory is back but the last sample does not show it
  /// yet.
  mutating func exited(_ app: String, pid: Int32) {
    guard let kill = pendingKill, kill.app == app, kill.pid == pid else { return }
    pendingKill = nil
    owesFreshSample = true
  }

  /// A victim past its deadline is stuck dying: it no longer holds the loop back (it keeps its requested kill, so it
  /// is never chosen again and its SIGKILL death is still recorded as memory pressure).
  mutating func tick(at: Instant) {
    if let kill = pendingKill, kill.deadline <= at { pendingKill = nil }
  }
}
