import Foundation
import Glibc
import Synchronization

/// The ways the demo app misbehaves on request, for labs that show what jetsam does about each.
enum Misbehaviour {
  /// Allocates and touches memory at a steady rate, forever, never freeing it.
  ///
  /// - Parameter megabytesPerSecond: How fast to grow, in MiB per second.
  static func leak(megabytesPerSecond: Double) {
    let thread = Thread {
      // Ten steps a second; each step's bytes are written so that they are resident, not just reserved.
      let step = max(1, Int(megabytesPerSecond * 1_048_576 / 10))
      var blocks: [UnsafeMutableRawPointer] = []
      while true {
        if let block = malloc(step) {
          memset(block, 0xA5, step)
          blocks.append(block)
        }
        Thread.sleep(forTimeInterval: 0.1)
      }
    }
    thread.name = "leak"
    thread.start()
  }

  /// Busy-loops on a thread of its own, forever.
  static func spin() {
    let thread = Thread {
      // The atomic keeps the loop from being optimised away.
      let spins = Atomic<UInt64>(0)
      while true { spins.wrappingAdd(1, ordering: .relaxed) }
    }
    thread.name = "spin"
    thread.start()
  }

  /// Crashes the process after a short delay (so the launch is acknowledged first).
  static func crash(_ kind: DemoOptions.Crash, after delay: TimeInterval = 0.5) {
    let thread = Thread {
      Thread.sleep(forTimeInterval: delay)
      switch kind {
      case .segv:
        // A real invalid access, not just the signal.
        UnsafeMutablePointer<Int>(bitPattern: 0x10)!.pointee = 1
      case .ill: raiseFatally(SIGILL)
      case .abort: abort()
      case .trap: raiseFatally(SIGTRAP)
      case .swiftTrap: _ = indexPastTheEnd([1, 2, 3])
      }
    }
    thread.name = "crash"
    thread.start()
  }

  /// Reads past the end of `values`: Swift's bounds check traps, as any precondition failure does.
  @inline(never)
  static func indexPastTheEnd(_ values: [Int]) -> Int {
    values[values.count]
  }

  /// Dies of a signal by its default action. Swift's crash backtracer handles SIGILL and SIGTRAP expecting a
  /// faulting instruction, and hangs on a raised one; the default action kills at once.
  private static func raiseFatally(_ signalNumber: Int32) {
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
  }

  /// Never returns: the handler that calls this hangs, and the watchdog should kill the app.
  @inline(never)
  static func hang() -> Never {
    while true { sleep(3600) }
  }
}
