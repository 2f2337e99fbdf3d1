import CJetsamShim
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning
import JetsamWire

/// jetsamd's end of an app's crash socket: the crash handler preloaded into the app (libjetsam-crash) writes
/// `crash pid=P tid=T signal=S code=C address=0xA` when one of its processes gets a fatal signal, then waits for one
/// byte back, sent once the stacks are taken (``acknowledge()``).
///
/// Every process of the app holds the app's end, and a line is whatever one of them writes: a report is taken only
/// when the kernel's word on its sender agrees with it (``CrashReportCheck``). The socket is a `SOCK_SEQPACKET` pair,
/// so each report is one message with the credentials of the process that sent it (`SO_PASSCRED`): no line can be
/// made of two writers' bytes.
final class CrashSocket {
  /// The descriptor number the app's end has in the app, and the variables that tell the handler: the crash
  /// handler's own high number (`HIGH_DESCRIPTOR` in crash_handler.c), out of the program's way from the start, so
  /// that no process of the app has to move it. A move cannot be passed on by a shell that exports an environment of
  /// its own (bash keeps its own copy, not libc's): a shell as the app's first process handed the program it execs
  /// a variable naming the socket's old number, and the program no handler.
  static let appDescriptor: Int32 = 900
  /// The most messages read in one loop turn: a flood of lines waits its turn behind every other source.
  static let messagesPerTurn = 16

  private let fd: FileDescriptor
  private var source: (any LoopSource)?
  private let appProcesses: () -> [Int32]
  private let onReport: (CrashReport) -> Void
  private let onRefused: (String) -> Void

  /// Watches `fd` (the daemon's end, from ``makePair()``) on `loop`. A report the kernel's credentials bear out goes
  /// to `onReport`; anything else, with why, to `onRefused`. `appProcesses` lists the app cgroup's processes.
  init(
    fd: FileDescriptor, loop: any LoopScheduling, appProcesses: @escaping () -> [Int32],
    onReport: @escaping (CrashReport) -> Void, onRefused: @escaping (String) -> Void
  ) throws {
    self.fd = fd
    self.appProcesses = appProcesses
    self.onReport = onReport
    self.onRefused = onRefused
    source = try loop.addWatch(fd: fd.rawValue, events: EpollEvents.readable) { [weak self] _ in self?.readReports() }
  }

  /// A connected `SOCK_SEQPACKET` pair whose daemon end (non-blocking) receives its senders' credentials.
  static func makePair() throws(SystemError) -> (daemon: FileDescriptor, app: FileDescriptor) {
    var fds: [Int32] = [-1, -1]
    try systemCall("socketpair SOCK_SEQPACKET") { jetsam_credentials_pair(&fds) }
    return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
  }

  /// The environment that turns the handler on in the app: the socket, the library preloaded (before any the app's
  /// own environment preloads), and the Swift runtime's crash handler off unless the app's environment sets it
  /// (`swiftBacktrace`, its `SWIFT_BACKTRACE`).
  ///
  /// A Swift program's runtime installs its handler for the same signals from its own constructor, which runs before
  /// the preloaded library's: until jetsam's replaces it, a signal goes to the Swift runtime's, which swallows a sent
  /// one (the program lives on, unreported), and on a terminal waits for someone to type at its prompt. jetsam takes
  /// the stacks itself, so nothing is lost.
  static func environment(library: String, preloaded: String?, swiftBacktrace: String? = nil) -> [String: String] {
    let preload = [library] + (preloaded.map { [$0] } ?? [])
    return [
      AppEnvironmentVariable.crashDescriptor.rawValue: String(appDescriptor),
      "LD_PRELOAD": preload.joined(separator: ":"),
      "SWIFT_BACKTRACE": swiftBacktrace ?? "enable=no",
    ]
  }

  /// Lets the crashed process go on (and die of its signal).
  func acknowledge() {
    var byte = UInt8(ascii: "\n")
    _ = write(fd.rawValue, &byte, 1)
  }

  func close() {
    source?.cancel()
    source = nil
    fd.close()
  }

  private func readReports() {
    var buffer = [UInt8](repeating: 0, count: CrashReportLine.maximumLength)
    for _ in 0..<CrashSocket.messagesPerTurn {
      var sender: pid_t = 0
      var truncated: Int32 = 0
      let count = jetsam_receive_with_credentials(fd.rawValue, &buffer, buffer.count, &sender, &truncated)
      // An empty message reads as 0 too, but comes with its sender's credentials; the end of file has none.
      if count == 0 && sender != 0 {
        onRefused("an empty message is no report")
        continue
      }
      guard count > 0 else {
        // Every process of the app closed its end, or an error: nothing more will come.
        if count == 0 || (errno != EAGAIN && errno != EINTR) {
          source?.cancel()
          source = nil
        }
        return
      }
      guard truncated == 0 else {
        onRefused("a message longer than \(CrashReportLine.maximumLength) bytes is no report")
        continue
      }
      var line = buffer[..<count]
      if line.last == UInt8(ascii: "\n") { line = line.dropLast() }
      guard let report = CrashReportLine.parse(String(decoding: line, as: UTF8.self)) else {
        onRefused("a message that is no report line")
        continue
      }
      if let refusal = CrashReportCheck.refusal(of: report, sender: sender, appProcesses: appProcesses) {
        onRefused(refusal)
      } else {
        onReport(report)
      }
    }
  }
}
