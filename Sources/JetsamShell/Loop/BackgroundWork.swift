import CJetsamShim
import Dispatch
import Glibc
import JetsamPlatform
import JetsamSpawning
import Synchronization

/// Runs blocking work (a large file read, a record's fdatasync) off the loop, and hands its result back on the
/// loop's thread: the worker posts it to a mailbox and signals an eventfd the loop watches.
final class BackgroundWork {
  /// Results posted by workers, waiting for the loop.
  private final class Mailbox: Sendable {
    let results = Mutex<[(ticket: Int, result: any Sendable)]>([])
    let wakeup: Int32
    init(wakeup: Int32) { self.wakeup = wakeup }

    func post(_ ticket: Int, _ result: any Sendable) {
      results.withLock { $0.append((ticket, result)) }
      var one: UInt64 = 1
      _ = Glibc.write(wakeup, &one, 8)
    }
  }

  private let mailbox: Mailbox
  private let queue: DispatchQueue
  private var source: EventSource?
  private var waiting: [Int: (any Sendable) -> Void] = [:]
  private var nextTicket = 0

  /// Work runs one item at a time, in order, on a queue of its own named `label`; `concurrent` work runs side by
  /// side instead (libdispatch starts another thread while the others block), for items that may each block for
  /// long and must not wait behind one another.
  init(loop: EventLoop, label: String = "jetsamd.background", qos: DispatchQoS = .utility, concurrent: Bool = false)
    throws
  {
    queue = DispatchQueue(label: label, qos: qos, attributes: concurrent ? .concurrent : [])
    let wakeup = jetsam_eventfd()
    guard wakeup >= 0 else { throw SystemError.current("eventfd") }
    mailbox = Mailbox(wakeup: wakeup)
    do {
      source = try loop.watch(fd: wakeup, events: EpollEvents.readable) { [unowned self] _ in self.deliver() }
    } catch {
      Glibc.close(wakeup)
      throw error
    }
  }

  deinit {
    source?.cancel()
    Glibc.close(mailbox.wakeup)
  }

  /// Runs `work` on a background queue, then `then` with its result on the loop.
  func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result, then: @escaping (Result) -> Void) {
    let ticket = nextTicket
    nextTicket += 1
    // Only the loop's thread touches `waiting`; the worker touches only the mailbox.
    waiting[ticket] = { result in then(result as! Result) }
    let mailbox = self.mailbox
    queue.async { mailbox.post(ticket, work()) }
  }

  private func deliver() {
    var counter: UInt64 = 0
    _ = Glibc.read(mailbox.wakeup, &counter, 8)
    let done = mailbox.results.withLock { results in
      defer { results = [] }
      return results
    }
    for (ticket, result) in done { waiting.removeValue(forKey: ticket)?(result) }
  }
}
