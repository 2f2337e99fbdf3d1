// jetsam-sockets: destroys the network sockets of a suspended app's processes, for jetsamd.
//
//   jetsam-sockets [--except-held-by PID] PID...
//
// Destroys the TCP and UDP sockets (IPv4 and IPv6, listeners included) the PIDs hold, with SOCK_DESTROY over
// inet_diag netlink (CAP_NET_ADMIN in the network's namespace), except those the --except-held-by process holds
// too (jetsamd's own). Prints what it destroyed, and what went wrong, as JSON lines (SocketToolOutput) and exits 0;
// 64 on bad arguments.
//
// A program of its own because inet_diag reaches only the sockets of the network namespace it is asked in: started
// through jetsamd's process launcher, it runs where the apps run (the spawner service, under systemd, whose network
// the apps share; jetsamd has a network of its own there and no CAP_NET_ADMIN). jetsamd reads its output on a helper
// thread within a time budget and kills it past that.
import Glibc
import JetsamSockets

/// Writes all of `text` to descriptor `fd` (a pipe to jetsamd: written through, no stdio buffer to flush).
func say(_ text: String, to fd: Int32) {
  var bytes = Array(text.utf8)[...]
  while !bytes.isEmpty {
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    if written < 0 && errno == EINTR { continue }
    guard written > 0 else { return }
    bytes = bytes.dropFirst(written)
  }
}

var pids: [Int32] = []
var kept = Set<UInt64>()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  if argument == "--except-held-by", let holder = arguments.popFirst(), let pid = Int32(holder), pid > 0 {
    kept = SocketInodes.of(process: holder)
  } else if let pid = Int32(argument), pid > 0 {
    pids.append(pid)
  } else {
    say("usage: jetsam-sockets [--except-held-by PID] PID...\n", to: STDERR_FILENO)
    exit(64)
  }
}
let outcome = NetworkSocketDestruction.destroy(heldBy: pids, except: kept)
say(SocketToolOutput.text(of: outcome), to: STDOUT_FILENO)
