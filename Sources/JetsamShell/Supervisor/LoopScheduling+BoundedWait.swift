import JetsamValues

extension LoopScheduling {
  /// A wait with a bound: the closure returned runs `then` the first time it is called, or at `deadline` if it has
  /// not been called by then; only once either way. What waits for a helper's report (a kill for a capture, a
  /// resume for a socket defunct) is thus never held past its budget by a report that never comes.
  func boundedWait(until deadline: Instant, then: @escaping () -> Void) -> () -> Void {
    var ran = false
    var timer: (any LoopSource)?
    let once = {
      guard !ran else { return }
      ran = true
      timer?.cancel()
      timer = nil
      then()
    }
    timer = try? addTimer(at: deadline) { once() }
    return once
  }
}
