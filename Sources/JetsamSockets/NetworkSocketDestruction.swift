import Glibc
import JetsamCore
import JetsamPlatform

/// Destroys the network sockets a set of processes holds: their socket inodes, matched against inet_diag dumps of
/// TCP (every state, listeners included) and UDP sockets, IPv4 and IPv6; each match is destroyed by its exact id.
/// Unix sockets never appear in those dumps, so an app's channel and crash socket are out of reach by construction.
/// Blocking (netlink and /proc): what `jetsam-sockets` does, in a process of its own where the apps' network is.
public enum NetworkSocketDestruction {
  /// What was destroyed, and what went wrong (nil: nothing).
  public struct Outcome: Sendable, Equatable {
    /// The sockets destroyed.
    public var sockets: [DefunctedSocket]
    /// Why some or all could not be (nil: nothing went wrong).
    public var problem: String?

    public init(sockets: [DefunctedSocket] = [], problem: String? = nil) {
      self.sockets = sockets
      self.problem = problem
    }
  }

  /// Destroys the TCP and UDP sockets `pids` hold, except those of `kept` (socket inodes).
  public static func destroy(heldBy pids: [Int32], except kept: Set<UInt64> = []) -> Outcome {
    // Only network sockets count (an app always holds Unix ones: its channel), told by each socket's protocol:
    // with none, there is nothing to ask the kernel.
    var held = SocketInodes.network(heldBy: pids)
    // A socket jetsamd holds as well (a listener it would hand an app, its own metrics listener should one leak
    // into an app) is jetsamd's: the app's copy of it is not its own to lose. Compared by inode, as the dump names
    // sockets.
    for inode in kept { held[inode] = nil }
    let namespaces = Set(Set(held.values).compactMap { SocketInodes.networkNamespace(of: "\($0)") })
    guard !held.isEmpty else { return Outcome() }
    // inet_diag answers for the namespace of the socket asking: this process's own, which is where apps are
    // started (the spawner service's, or jetsamd's). An app that made a network of its own is out of its reach:
    // said, not silently skipped.
    if let own = SocketInodes.networkNamespace(of: "self"), let other = namespaces.first(where: { $0 != own }) {
      return Outcome(
        problem:
          "its \(held.count) network socket(s) are in network namespace \(other), jetsam-sockets is in \(own): "
          + "inet_diag cannot reach them")
    }
    let diag: InetDiagSocket
    do {
      diag = try InetDiagSocket()
    } catch {
      return Outcome(problem: "\(error)")
    }
    var outcome = Outcome()
    var failures: [String] = []
    for family in [UInt8(AF_INET), UInt8(AF_INET6)] {
      for transport in [UInt8(IPPROTO_TCP), UInt8(IPPROTO_UDP)] {
        let entries: [InetDiagSocket.Entry]
        do {
          entries = try diag.dump(family: family, protocol: transport)
        } catch {
          failures.append("\(error)")
          continue
        }
        for entry in entries where entry.inode != 0 {
          guard let pid = held[entry.inode] else { continue }
          let socket = entry.described(pid: pid)
          do {
            try diag.destroy(entry)
            outcome.sockets.append(socket)
          } catch  where error.code == ENOENT {
            // Closed since the dump: nothing left to destroy.
          } catch {
            failures.append("\(socket.summary): \(error)")
          }
        }
      }
    }
    if let first = failures.first {
      outcome.problem = failures.count == 1 ? first : "\(first) (and \(failures.count - 1) more)"
    }
    return outcome
  }
}
