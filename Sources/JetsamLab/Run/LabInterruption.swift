import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamPlatform
import Synchronization

/// SIGINT and SIGTERM end a lab cleanly: its private jetsamd is stopped (its apps and cgroups with it, see
/// ``LabDaemon/stop()``) before jetsam-lab exits with the conventional status, 128 + the signal's number.
///
/// The signals are blocked and taken by a thread of their own (`sigwait`), not by a handler: stopping jetsamd
/// waits, which a handler may not. SIGKILL cannot be caught: then jetsamd sees the lab end itself
/// (`--exit-with-parent`).
public enum LabInterruption {
  /// The private jetsamd running now, if any.
  private static let daemon = Mutex<DaemonProcess?>(nil)
  /// Who ends the process: 0 not decided yet, ``exiting`` the main thread, else the signal's number.
  private static let ending = Atomic<Int32>(0)
  private static let exiting: Int32 = -1

  /// Whether a SIGINT or SIGTERM is ending the run: what the run prints from now on no longer counts.
  public static var isInterrupted: Bool { ending.load(ordering: .acquiring) > 0 }

  /// Takes SIGINT and SIGTERM from now on. Called first thing in main, before any other thread exists: threads
  /// inherit the blocked mask, so that no other thread takes the signal and dies of it.
  public static func install() {
    var signals = interruptSignals()
    pthread_sigmask(SIG_BLOCK, &signals, nil)
    Thread.detachNewThread {
      var signals = interruptSignals()
      var number: Int32 = 0
      while sigwait(&signals, &number) != 0 {}
      // The main thread already exiting has stopped jetsamd: let it finish.
      guard ending.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged else {
        return
      }
      let name = number == SIGINT ? "SIGINT" : "SIGTERM"
      FileHandle.standardError.write(Data("jetsam-lab: interrupted by \(name): stopping, no reports written\n".utf8))
      stopDaemon()
      Glibc.exit(128 + number)
    }
  }

  /// Exits with `status`, unless a signal is ending the run: then its thread stops jetsamd and exits, and this one
  /// waits for that (two threads must not run exit's clean-up at once).
  public static func exit(_ status: Int32) -> Never {
    guard ending.compareExchange(expected: 0, desired: exiting, ordering: .acquiringAndReleasing).exchanged else {
      while true { pause() }
    }
    Glibc.exit(status)
  }

  /// The private jetsamd has started: it is what ``stopDaemon()`` stops. One at a time.
  static func daemonStarted(_ process: DaemonProcess) {
    daemon.withLock { $0 = process }
  }

  /// Stops the private jetsamd if one runs (SIGTERM: it ends its apps and removes its cgroups; SIGKILL after
  /// ``LabDaemon/stopGrace``), and returns once it has ended. Under the lock: the main thread's stop at the end of a
  /// run and the signal thread's wait for each other.
  static func stopDaemon() {
    daemon.withLock { process in
      guard let running = process else { return }
      running.stop(grace: LabDaemon.stopGrace)
      process = nil
    }
  }

  private static func interruptSignals() -> sigset_t {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    return signals
  }
}
