import JetsamCore
import JetsamProtocol

extension JSONBytes {
  /// ``LaunchMetrics`` as its `Codable` form writes it, keys sorted, written directly: it is in every running app's
  /// saved form, so it must cost what the rest of the app's fields cost (no JSONEncoder on the loop per app).
  mutating func launchMetrics(_ metrics: LaunchMetrics) {
    raw("{")
    if let afterExit = metrics.afterExit {
      key("afterExit", first: true)
      string(afterExit.rawValue)
      key("backgroundAudioSeconds")
    } else {
      key("backgroundAudioSeconds", first: true)
    }
    seconds(metrics.backgroundAudioSeconds)
    key("backgroundSeconds")
    seconds(metrics.backgroundSeconds)
    if let written = metrics.bytesWritten {
      key("bytesWritten")
      number(written)
    }
    key("foregroundSeconds")
    seconds(metrics.foregroundSeconds)
    key("hangTimes")
    histogram(metrics.hangTimes)
    key("resumeTimes")
    histogram(metrics.resumeTimes)
    key("signposts")
    signposts(metrics.signposts)
    key("suspendedMemory")
    suspendedMemory(metrics.suspendedMemory)
    if let firstDraw = metrics.timeToFirstDrawSeconds {
      key("timeToFirstDrawSeconds")
      seconds(firstDraw)
    }
    raw("}")
  }

  /// Each name's figures, names sorted (at most ``LaunchMetrics/maxSignpostNames`` of them).
  private mutating func signposts(_ signposts: [String: SignpostFigures]) {
    raw("{")
    for (index, name) in signposts.keys.sorted().enumerated() {
      if index > 0 { raw(",") }
      string(name)
      raw(":{")
      let figures = signposts[name]!
      key("bytesWritten", first: true)
      number(figures.bytesWritten)
      key("cpuSeconds")
      seconds(figures.cpuSeconds)
      key("durations")
      histogram(figures.durations)
      key("measuredIntervals")
      number(figures.measuredIntervals)
      key("memoryBytesSum")
      seconds(figures.memoryBytesSum)
      key("totalCount")
      number(figures.totalCount)
      raw("}")
    }
    raw("}")
  }

  /// A figure that cannot be written as a JSON number (which a clock difference never is) is written as 0.
  private mutating func seconds(_ value: Double) {
    if !number(value) { raw("0") }
  }

  private mutating func suspendedMemory(_ average: SuspendedMemoryAverage) {
    raw("{")
    key("averageBytes", first: true)
    seconds(average.averageBytes)
    key("samples")
    number(average.samples)
    key("seconds")
    seconds(average.seconds)
    key("weightedSquares")
    seconds(average.weightedSquares)
    raw("}")
  }

  private mutating func histogram(_ histogram: DurationHistogram) {
    raw("[")
    for (index, bucket) in histogram.buckets.enumerated() {
      raw(index > 0 ? ",{" : "{")
      key("count", first: true)
      number(bucket.count)
      key("endMilliseconds")
      number(bucket.endMilliseconds)
      key("startMilliseconds")
      number(bucket.startMilliseconds)
      raw("}")
    }
    raw("]")
  }
}
