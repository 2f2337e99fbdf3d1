import Foundation
import Synchronization

/// The demo app's live state, shared between the event loop and the ticker thread.
final class DemoModel: Sendable {
  private let state = Mutex(DemoState())
  private let active = Atomic<Bool>(false)

  /// A copy of the state as it is now.
  var snapshot: DemoState { state.withLock { $0 } }

  /// Replaces the state (at launch, with what was restored).
  func replace(with newState: DemoState) {
    state.withLock { $0 = newState }
  }

  /// Fetches the news feed again (the next generation).
  func refreshFeed() {
    state.withLock { $0.feed += 1 }
  }

  /// Starts or stops counting.
  func setActive(_ isActive: Bool) {
    active.store(isActive, ordering: .relaxed)
  }

  /// Starts the thread that ticks the state every 100 ms while active. A suspended app's ticker is stopped
  /// with it, so the count measures time spent active.
  func startTicking() {
    let ticker = Thread { [self] in
      while true {
        Thread.sleep(forTimeInterval: 0.1)
        if active.load(ordering: .relaxed) {
          state.withLock { $0.tick() }
        }
      }
    }
    ticker.name = "ticker"
    ticker.start()
  }
}
