import CJetsamShim
import Glibc
import JetsamCore
import JetsamPlatform

/// Gives freed heap memory back to the kernel a while after activity: glibc keeps what a burst freed (a batch
/// answer for 1,000 apps, a state file) mapped, so an idle daemon would hold its busiest moment's heap. Measured
/// with 1,000 apps: about 17 MB of own memory before trimming.
///
/// At most one trim per ``delay``, and only after something happened: an idle daemon does nothing.
final class HeapTrimmer {
  static let delay: Duration = .seconds(2)

  private let loop: EventLoop
  private var timer: EventSource?
  private var armed = false

  init(loop: EventLoop) { self.loop = loop }

  /// Something allocated and freed memory (a request, a batch of events): trim once things settle.
  func noteActivity() {
    guard !armed else { return }
    if timer == nil {
      timer = try? loop.timer(at: nil) { [unowned self] in
        self.armed = false
        // Returns the free pages of every arena with madvise; taking a few hundred µs, on the loop, when idle.
        _ = malloc_trim(0)
      }
    }
    armed = true
    timer?.schedule(at: MonotonicClock.now().advanced(by: HeapTrimmer.delay))
  }
}
