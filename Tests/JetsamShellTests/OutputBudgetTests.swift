import JetsamPlatform
import JetsamTestTraits
import Testing

@testable import JetsamShell

/// The daemon-wide budget of unread client output, and the queue a stream keeps it in.
@Suite("Output budget", .offThePool)
struct OutputBudgetTests {
  /// A client that records why it was dropped.
  final class Client: OutputHolder {
    let clientDescription: String
    var evicted: String?
    init(_ name: String) { clientDescription = name }
    func evict(because reason: String) { evicted = reason }
  }

  static let log = Logger(threshold: .error)

  @Test("a client owed more than its share is dropped, the others are not")
  func perClient() {
    let budget = OutputBudget(perClient: 1000, total: 10_000, log: Self.log)
    let greedy = Client("greedy")
    let modest = Client("modest")
    budget.update(modest, owes: 900)
    budget.update(greedy, owes: 1000)
    #expect(greedy.evicted == nil && budget.owed == 1900)
    budget.update(greedy, owes: 1001)
    #expect(
      greedy.evicted == "1001 bytes of output unread, more than the 1000 bytes a client may be owed",
      "\(greedy.evicted ?? "")")
    #expect(modest.evicted == nil)
    #expect(budget.owed == 900 && budget.holdersOwed == 1)
  }

  @Test("past the total, the clients owed the most are dropped until the rest fit; the one that tipped it may stay")
  func total() {
    let budget = OutputBudget(perClient: 1000, total: 2000, log: Self.log)
    let clients = (0..<4).map { Client("client \($0)") }
    budget.update(clients[0], owes: 900)
    budget.update(clients[1], owes: 800)
    budget.update(clients[2], owes: 200)
    #expect(clients.allSatisfy { $0.evicted == nil })
    // 900 + 800 + 200 + 500 = 2400: dropping the one owed 900 leaves 1500.
    budget.update(clients[3], owes: 500)
    #expect(clients[0].evicted?.contains("the most of any client") == true)
    #expect(clients[1...].allSatisfy { $0.evicted == nil })
    #expect(budget.owed == 1500)
    // Checked again at every change, not once per client: the one still owed 800 grows past the total.
    budget.update(clients[1], owes: 1000)
    budget.update(clients[2], owes: 600)
    #expect(clients[1].evicted != nil)
    #expect(budget.owed == 1100 && budget.holdersOwed == 2)
  }

  @Test("a client that reads is forgotten; its release returns its bytes")
  func release() {
    let budget = OutputBudget(perClient: 1000, total: 2000, log: Self.log)
    let reader = Client("reader")
    budget.update(reader, owes: 700)
    budget.update(reader, owes: 0)
    #expect(budget.owed == 0 && budget.holdersOwed == 0)
    budget.update(reader, owes: 300)
    budget.release(reader)
    #expect(budget.owed == 0 && budget.holdersOwed == 0 && reader.evicted == nil)
  }

  /// Writes at most `limit` bytes of `queue`, as a socket taking that much would.
  static func write(_ queue: inout OutputQueue, limit: Int) -> [UInt8] {
    var written: [UInt8] = []
    while written.count < limit, let bytes = queue.withNextBytes({ Array($0.prefix(limit - written.count)) }) {
      written += bytes
      queue.consume(bytes.count)
    }
    return written
  }

  @Test("the queue writes its lines in order, in chunks, and a dropped peer keeps only the rest of its line")
  func queue() {
    var queue = OutputQueue()
    let small = Array(repeating: UInt8(ascii: "a"), count: 99)
    let large = Array(repeating: UInt8(ascii: "b"), count: OutputQueue.chunkBytes * 2)
    for _ in 0..<300 { queue.append(line: small) }
    queue.append(line: large)
    queue.append(line: small)
    #expect(queue.count == 301 * 100 + large.count + 1)
    // One chunk at most per write.
    #expect(queue.withNextBytes { $0.count } ?? 0 <= OutputQueue.chunkBytes)
    let head = Self.write(&queue, limit: 250)
    #expect(head == Array((small + [10] + small + [10] + small[..<50]).prefix(250)))
    #expect(queue.midLine)
    let everything = Self.write(&queue, limit: .max)
    #expect(everything.count == 301 * 100 + large.count + 1 - 250)
    #expect(Array(everything.suffix(100)) == small + [10] && queue.isEmpty && !queue.midLine)

    // Half a line written, then the peer is dropped: it gets the rest of that line, then only the last one.
    for _ in 0..<10 { queue.append(line: small) }
    _ = Self.write(&queue, limit: 130)
    queue.discardAllButCurrentLine()
    queue.append(line: Array("bye".utf8))
    #expect(Self.write(&queue, limit: .max) == Array(small[30...]) + [10] + Array("bye\n".utf8))
    // At a line's end, nothing is kept.
    queue.append(line: small)
    _ = Self.write(&queue, limit: 100)
    queue.append(line: small)
    queue.discardAllButCurrentLine()
    #expect(queue.isEmpty)
  }
}
