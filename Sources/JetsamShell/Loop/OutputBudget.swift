import JetsamPlatform

/// A client connection that queues output in jetsamd's memory: a control connection, a metrics connection.
protocol OutputHolder: AnyObject {
  /// Who the client is, for the log (`control client (uid 1000)`).
  var clientDescription: String { get }
  /// Drops the client for holding too much unread output: after a last line saying `reason` where its protocol has
  /// one. The budget has already forgotten it.
  func evict(because reason: String)
}

/// The one budget of output jetsamd holds for clients that have not read it yet, shared by every writer of client
/// output: control replies, the `watch` and `exits --follow` streams, and the metrics endpoint's answers.
///
/// A client may be owed up to ``perClient`` (one large answer fits: an `exits` answer holds at most 4 MiB of
/// records), all clients together up to ``total``. Checked at every change of what a client is owed (never only
/// when it first falls behind, or a client that stays behind would never be checked again):
/// - a client owed more than ``perClient`` is dropped;
/// - while all together are owed more than ``total``, the one owed the most is dropped.
///
/// So however many clients stop reading (256 control connections at most, and 16 metrics connections), their
/// unread output costs jetsamd at most ``total`` bytes of memory, where ``perClient`` for each would be 2 GiB. A
/// client that reads is owed little for long and is never the one dropped.
final class OutputBudget {
  /// What one client may be owed, by default.
  static let perClientBytes = 8 << 20
  /// What all clients together may be owed, by default.
  static let totalBytes = 32 << 20

  let perClient: Int
  let total: Int
  /// Bytes owed to all clients together.
  private(set) var owed = 0
  /// The clients owed anything, and how much (those owed nothing are not kept: the search for the largest scans
  /// only clients that are behind).
  private var holders: [ObjectIdentifier: (holder: any OutputHolder, bytes: Int)] = [:]
  private let log: Logger

  init(perClient: Int = OutputBudget.perClientBytes, total: Int = OutputBudget.totalBytes, log: Logger) {
    self.perClient = perClient
    self.total = total
    self.log = log
  }

  /// How many clients are owed anything.
  var holdersOwed: Int { holders.count }

  /// Records that `holder` now owes its client `bytes`, then drops whoever that puts over the budget (`holder`
  /// itself, or the client owed the most).
  func update(_ holder: any OutputHolder, owes bytes: Int) {
    let id = ObjectIdentifier(holder)
    owed += bytes - (holders[id]?.bytes ?? 0)
    holders[id] = bytes > 0 ? (holder, bytes) : nil
    if bytes > perClient {
      evict(
        id,
        because: "\(Self.describe(bytes)) of output unread, more than the \(Self.describe(perClient)) a client "
          + "may be owed")
    }
    while owed > total, let largest = holders.max(by: { $0.value.bytes < $1.value.bytes }) {
      evict(
        largest.key,
        because: "\(Self.describe(largest.value.bytes)) of output unread, the most of any client, while all clients "
          + "together were owed more than \(Self.describe(total))")
    }
  }

  /// Forgets `holder` (its client is gone, or owes nothing more).
  func release(_ holder: any OutputHolder) { update(holder, owes: 0) }

  private func evict(_ id: ObjectIdentifier, because reason: String) {
    guard let (holder, bytes) = holders.removeValue(forKey: id) else { return }
    owed -= bytes
    log.warning("dropping \(holder.clientDescription): \(reason)")
    holder.evict(because: reason)
  }

  /// `bytes` in MiB, KiB below one MiB, bytes below one KiB.
  static func describe(_ bytes: Int) -> String {
    bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : bytes >= 1 << 10 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
  }
}
