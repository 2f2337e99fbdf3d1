import Glibc
import JetsamPlatform

/// Whether processes may hold network sockets, told without netlink or a process of its own: most suspended apps
/// hold none, and for those jetsamd need not start `jetsam-sockets` at all. Blocking (a /proc listing and one
/// getxattr per socket): a helper thread's.
public enum NetworkSocketPresence {
  /// False only when it is known that none of `pids` holds a TCP or UDP socket: each one's descriptors were read (or
  /// it has gone) and each socket's protocol is another. Whatever cannot be read (a process not jetsamd's to look
  /// into, a socket's protocol) counts as "may": the tool then looks.
  public static func mayHold(_ pids: [Int32]) -> Bool {
    for pid in pids {
      do {
        if !(try SocketInodes.network(process: "\(pid)")).isEmpty { return true }
      } catch  where error.code == ENOENT || error.code == ESRCH {
        continue  // gone: it holds nothing
      } catch {
        return true
      }
    }
    return false
  }
}
