import Foundation
import JetsamCore
import JetsamProtocol
import JetsamValues

/// The whole sequence of a chaos session's actions, drawn from its seed before the session starts: the same seed
/// and settings give the same actions at the same times, whatever the apps then do.
public struct ChaosPlan: Sendable {
  /// One planned action.
  public struct Action: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
      /// The user opens the app (resumed, or cold-started).
      case activate
      /// The user goes to the home screen: the app opened last goes to the background.
      case home
      /// A balloon of `size` bytes appears.
      case spike
      /// The balloon is released.
      case release
      /// The app is killed with `reason` (skipped if it is not running).
      case kill
      /// These apps, those of them suspended, are resumed into the background at once.
      case wake
    }

    /// Seconds after the session starts.
    public var at: Double
    public var kind: Kind
    public var apps: [String] = []
    public var size: Int64?
    public var reason: ExitReason?

    /// `12.500s activate mail`.
    public var title: String {
      var text = "\(kind.rawValue)"
      if !apps.isEmpty { text += " " + apps.joined(separator: " ") }
      if let size { text += " \(ByteSize.format(size))" }
      if let reason { text += " (\(reason.rawValue))" }
      return text
    }
  }

  public var seed: UInt64
  public var actions: [Action]

  /// Draws the plan for `settings` from `seed`.
  public init(settings: ChaosSettings, seed: UInt64) {
    self.seed = seed
    let end = settings.duration.seconds
    var actions: [Action] = []

    // The user: a switch after each dwell, to an app other than the current one, by weight; now and then home.
    var usage = SeededRandom(seed: seed, stream: 1)
    var current: String?
    var t = 0.0
    while t < end {
      if let leaving = current, usage.chance(settings.home) {
        actions.append(Action(at: t, kind: .home, apps: [leaving]))
        current = nil
      } else {
        let candidates = settings.apps.filter { $0 != current }
        guard !candidates.isEmpty else { break }
        let app = usage.pick(candidates) { settings.weights[$0] ?? 1 }
        actions.append(Action(at: t, kind: .activate, apps: [app]))
        current = app
      }
      t += usage.uniform(settings.dwell)
    }
    // Which apps have been opened by a time: kills and wakes pick among those.
    let opened = { (time: Double) -> [String] in
      var seen: [String] = []
      for action in actions where action.kind == .activate && action.at <= time && !seen.contains(action.apps[0]) {
        seen.append(action.apps[0])
      }
      return seen
    }

    if let spikes = settings.spikes {
      var random = SeededRandom(seed: seed, stream: 2)
      var t = random.exponential(mean: spikes.every.seconds)
      while t < end {
        let megabytes = random.uniform(Double(spikes.size.lowerBound >> 20)...Double(spikes.size.upperBound >> 20))
        let length = random.uniform(spikes.length)
        actions.append(Action(at: t, kind: .spike, size: Int64(megabytes.rounded()) << 20))
        actions.append(Action(at: min(t + length, end), kind: .release))
        t += length + random.exponential(mean: spikes.every.seconds)
      }
    }
    if let kills = settings.kills, !kills.reasons.isEmpty {
      var random = SeededRandom(seed: seed, stream: 3)
      var t = random.exponential(mean: kills.every.seconds)
      while t < end {
        let candidates = opened(t)
        if !candidates.isEmpty {
          actions.append(
            Action(
              at: t, kind: .kill, apps: [random.pick(candidates) { _ in 1 }],
              reason: random.pick(kills.reasons) { _ in 1 }))
        }
        t += random.exponential(mean: kills.every.seconds)
      }
    }
    if let wakes = settings.wakes {
      var random = SeededRandom(seed: seed, stream: 4)
      var t = random.exponential(mean: wakes.every.seconds)
      while t < end {
        var candidates = opened(t)
        var woken: [String] = []
        while woken.count < wakes.apps && !candidates.isEmpty {
          let app = random.pick(candidates) { _ in 1 }
          woken.append(app)
          candidates.removeAll { $0 == app }
        }
        if !woken.isEmpty { actions.append(Action(at: t, kind: .wake, apps: woken)) }
        t += random.exponential(mean: wakes.every.seconds)
      }
    }
    // In time order; at equal times, in the order drawn (a stable sort).
    self.actions = actions.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
      .map(\.element)
  }
}

/// Draws from ``SplitMix64``: the same numbers on every machine for the same seed. Each kind of action draws from a stream of its own,
/// so that adding kills to a scenario leaves its app switches as they were.
struct SeededRandom {
  private var generator: SplitMix64

  init(seed: UInt64, stream: UInt64) {
    generator = SplitMix64(state: seed &+ stream &* 0x9E37_79B9_7F4A_7C15)
  }

  mutating func next() -> UInt64 { generator.next() }

  /// Uniform in [0, 1).
  mutating func unit() -> Double { generator.unit() }

  mutating func uniform(_ range: ClosedRange<Double>) -> Double {
    range.lowerBound + unit() * (range.upperBound - range.lowerBound)
  }

  mutating func chance(_ probability: Double) -> Bool { unit() < probability }

  /// Exponentially distributed with this mean: the gaps of a Poisson process.
  mutating func exponential(mean: Double) -> Double { -mean * log1p(-unit()) }

  /// One of `items`, each as likely as its weight.
  mutating func pick<T>(_ items: [T], weight: (T) -> Double) -> T {
    let total = items.reduce(0) { $0 + max(weight($1), 0) }
    var target = unit() * total
    for item in items {
      target -= max(weight(item), 0)
      if target < 0 { return item }
    }
    return items[items.count - 1]
  }
}
