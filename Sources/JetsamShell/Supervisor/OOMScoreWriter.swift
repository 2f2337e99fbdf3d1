import JetsamCore

/// Writes each app's band to its processes' `oom_score_adj` (the policy's mapping), so that the kernel's OOM
/// killer, should it ever act before jetsam, agrees with jetsam's order.
///
/// Applied right after the current events (the reply to a request goes out first): rewriting every process's score is
/// the slowest part of a state change. Not while stops are being checked (``isBusy``): a thousand scores take
/// milliseconds, and a suspend is answered only once its apps are seen stopped. The scores are a backstop; they can
/// wait a little.
final class OOMScoreWriter {
  /// How many apps' scores are written in one loop turn: a pressure event waiting behind 1,000 apps' scores would
  /// wait ~10 ms.
  static let appsPerTurn = 64

  private let loop: any LoopScheduling
  private let signals: any SignalSender
  private let isBusy: () -> Bool
  private let processes: (String) -> AppProcess?
  private let score: (Band) -> Int32
  /// Apps whose band changed, waiting for their processes' scores to follow.
  private var pending: [String: Band] = [:]
  private var timer: (any LoopSource)?

  init(
    loop: any LoopScheduling, signals: any SignalSender, isBusy: @escaping () -> Bool,
    processes: @escaping (String) -> AppProcess?, score: @escaping (Band) -> Int32
  ) {
    self.loop = loop
    self.signals = signals
    self.isBusy = isBusy
    self.processes = processes
    self.score = score
  }

  /// App `name` is in `band` now: its processes' scores follow soon.
  func bandChanged(_ name: String, to band: Band) {
    pending[name] = band
    if timer == nil { timer = try? loop.addTimer(at: nil) { [unowned self] in self.apply() } }
    timer?.schedule(at: loop.now())
  }

  /// App `name` ended: nothing of it is left to write.
  func forget(_ name: String) { pending[name] = nil }

  private func apply() {
    guard !isBusy() else {
      timer?.schedule(at: loop.now().advanced(by: .milliseconds(2)))
      return
    }
    // A slice at a time, the rest on the next loop turn.
    for (name, band) in Array(pending.prefix(OOMScoreWriter.appsPerTurn)) {
      pending[name] = nil
      guard let app = processes(name) else { continue }
      let score = score(band)
      for pid in (try? app.cgroup.processIDs()) ?? [] { try? signals.setOOMScoreAdj(score, of: pid) }
    }
    if !pending.isEmpty { timer?.schedule(at: loop.now()) }
  }
}
