import JetsamValues

/// Jetsam's choice of whom to kill next, as a pure function of the apps and the pressure level.
public enum VictimSelection {
  /// Whether `a` dies before `b`: lower effective band first, then the one longest in its band (so suspended
  /// apps die longest-suspended-first), then the older process, then by name so the order is total.
  public static func diesBefore(_ a: AppStatus, _ b: AppStatus) -> Bool {
    if a.band != b.band { return a.band < b.band }
    if a.bandEnteredAt != b.bandEnteredAt { return a.bandEnteredAt < b.bandEnteredAt }
    // A process without a spawn time cannot be killed anyway; sorting it last keeps the order total.
    let aSpawned = a.spawnedAt ?? Instant(nanoseconds: .max)
    let bSpawned = b.spawnedAt ?? Instant(nanoseconds: .max)
    if aSpawned != bSpawned { return aSpawned < bSpawned }
    return a.name < b.name
  }

  /// The apps in the order jetsam would kill them (also the order of a jetsam snapshot).
  public static func killOrder(_ apps: [AppStatus]) -> [AppStatus] {
    apps.sorted(by: diesBefore)
  }

  /// Whether jetsam may kill an app in `band` at `level`: nobody below urgent; at urgent only apps below the
  /// foreground band; at critical every band.
  public static func mayKill(band: Band, at level: PressureLevel) -> Bool {
    switch level {
    case .normal, .warning: false
    case .urgent: band < .foreground
    case .critical: true
    }
  }

  /// The next victim among `candidates` at `level`, or nil if nobody may be killed.
  ///
  /// Only running apps with a pid are considered; the caller leaves out apps that are already being killed.
  public static func victim(among candidates: [AppStatus], level: PressureLevel) -> AppStatus? {
    candidates
      .filter { $0.state.isRunning && $0.pid != nil && mayKill(band: $0.band, at: level) }
      .min(by: diesBefore)
  }
}
