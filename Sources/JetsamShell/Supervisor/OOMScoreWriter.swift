import JetsamCore

/// Writes each app's band to its processes' `oom_score_adj` (the policy's mapping), so that the kernel's OOM
/// killer, should it ever act before jetsam, agrees with jetsam's order.
///
/// Applied in a later loop turn (the reply to a request goes out first): rewriting every process's score is the
/// slowest part of a state change. Not while stops are being checked (``AfterStopChecks``): a thousand scores take
/// milliseconds, and a suspend is answered only once its apps are seen stopped. The scores are a backstop; they can
/// wait a little.
final class OOMScoreWriter {
  /// How many apps' scores are written in one loop turn: a pressure event waiting behind 1,000 apps' scores would
  /// wait ~10 ms.
  static let appsPerTurn = 64

  private let signals: any SignalSender
  /// When the scores are written: once the stops under way are seen, in a later turn.
  private let afterStops: AfterStopChecks
  private let processes: (String) -> AppProcess?
  private let score: (Band) -> Int32
  /// Apps whose band changed, waiting for their processes' scores to follow.
  private var pending: [String: Band] = [:]
  /// Whether a slice of writes waits in ``afterStops``.
  private var scheduled = false

  init(
    signals: any SignalSender, afterStops: AfterStopChecks, processes: @escaping (String) -> AppProcess?,
    score: @escaping (Band) -> Int32
  ) {
    self.signals = signals
    self.afterStops = afterStops
    self.processes = processes
    self.score = score
  }

  /// App `name` is in `band` now: its processes' scores follow soon.
  func bandChanged(_ name: String, to band: Band) {
    pending[name] = band
    scheduleSlice()
  }

  /// App `name` ended: nothing of it is left to write.
  func forget(_ name: String) { pending[name] = nil }

  private func scheduleSlice() {
    guard !scheduled else { return }
    scheduled = true
    afterStops.run { [unowned self] in self.apply() }
  }

  private func apply() {
    scheduled = false
    // A slice at a time, the rest in a later turn.
    for (name, band) in Array(pending.prefix(OOMScoreWriter.appsPerTurn)) {
      pending[name] = nil
      guard let app = processes(name) else { continue }
      let score = score(band)
      for pid in (try? app.cgroup.processIDs()) ?? [] { try? signals.setOOMScoreAdj(score, of: pid) }
    }
    if !pending.isEmpty { scheduleSlice() }
  }
}
