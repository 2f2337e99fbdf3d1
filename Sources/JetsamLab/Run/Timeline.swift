import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamProtocol

/// Everything jetsamd did during a run, as its `watch` pushed it: read on a thread of its own, so that a step that
/// waits never misses a change.
final class Timeline: @unchecked Sendable {
  /// The picture when the watch began.
  let snapshot: WatchSnapshot
  private let client: ControlClient
  private let lock = NSLock()
  private var changes: [LiveChange] = []
  private var ended: String?
  private var reader: Thread?

  /// Subscribes on a connection of its own to the daemon at `socket`, memory sampled every `interval` seconds.
  init(socket: String, interval: Double) throws {
    client = try ControlClient(path: socket)
    var request = ControlRequest(verb: .watch)
    request.interval = interval
    let answer = try client.send(request)
    guard let snapshot = answer.watch else {
      throw LabError("jetsamd refused to be watched: \(answer.error?.message ?? "no snapshot")")
    }
    self.snapshot = snapshot
    let thread = Thread { [self] in self.read() }
    thread.name = "jetsam-lab-watch"
    reader = thread
    thread.start()
  }

  private func read() {
    do {
      while let line = try client.nextResponse() {
        guard let change = line.change else { continue }
        lock.withLock { changes.append(change) }
      }
      lock.withLock { ended = "jetsamd closed the watch" }
    } catch {
      lock.withLock { ended = "\(error)" }
    }
  }

  /// Every change so far, in the order jetsamd made them.
  var all: [LiveChange] { lock.withLock { changes } }

  /// Why the watch ended, if it did (jetsamd stopped or dropped it).
  var endReason: String? { lock.withLock { ended } }

  /// The exit records so far, oldest first.
  var exits: [ExitRecord] { all.compactMap { $0.kind == .exit ? $0.record : nil } }

  /// Ends the subscription (the reader thread sees the end and stops).
  func close() {
    shutdown(client.socketDescriptor, Int32(SHUT_RDWR))
  }
}
