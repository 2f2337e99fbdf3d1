import Glibc
import JetsamCore

/// jetsamd's end of an app's crash socket: the crash handler preloaded into the app (libjetsam-crash) writes
/// `crash pid=P tid=T signal=S code=C address=0xA` when one of its processes gets a fatal signal, then waits for one
/// byte back, sent once the stacks are taken (``acknowledge()``).
final class CrashSocket {
  /// The descriptor number the app's end has in the app, and the variables that tell the handler.
  static let appDescriptor: Int32 = 4

  private let fd: FileDescriptor
  private var source: (any LoopSource)?
  private var pending: [UInt8] = []
  private let onCrash: (CrashReport) -> Void

  /// Watches `fd` (the daemon's end, non-blocking) on `loop`.
  init(fd: FileDescriptor, loop: any LoopScheduling, onCrash: @escaping (CrashReport) -> Void) throws {
    self.fd = fd
    self.onCrash = onCrash
    source = try loop.addWatch(fd: fd.rawValue, events: EpollEvents.readable) { [weak self] _ in self?.readReports() }
  }

  /// The environment that turns the handler on in the app: the socket, and the library preloaded (before any
  /// the app's own environment preloads).
  static func environment(library: String, preloaded: String?) -> [String: String] {
    let preload = [library] + (preloaded.map { [$0] } ?? [])
    return ["JETSAM_CRASH_FD": String(appDescriptor), "LD_PRELOAD": preload.joined(separator: ":")]
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
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = read(fd.rawValue, &buffer, buffer.count)
    guard count > 0 else {
      // End of file (every process of the app closed its end) or an error: nothing more will come.
      if count == 0 || (errno != EAGAIN && errno != EINTR) {
        source?.cancel()
        source = nil
      }
      return
    }
    pending += buffer[..<count]
    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
      let line = String(decoding: pending[..<newline], as: UTF8.self)
      pending.removeSubrange(...newline)
      if let report = Self.parse(line) { onCrash(report) }
    }
    // A line longer than any the handler writes is not one of its: dropped.
    if pending.count > 1024 { pending = [] }
  }

  /// `crash pid=P tid=T signal=S code=C address=0xA`, or nil.
  static func parse(_ line: String) -> CrashReport? {
    let words = line.split(separator: " ")
    guard words.first == "crash" else { return nil }
    var fields: [Substring: Substring] = [:]
    for word in words.dropFirst() {
      guard let equals = word.firstIndex(of: "=") else { return nil }
      fields[word[..<equals]] = word[word.index(after: equals)...]
    }
    guard let pid = fields["pid"].flatMap({ Int32($0) }), let tid = fields["tid"].flatMap({ Int32($0) }),
      let signal = fields["signal"].flatMap({ Int32($0) }), let code = fields["code"].flatMap({ Int32($0) }),
      let address = fields["address"].flatMap({ $0.hasPrefix("0x") ? UInt64($0.dropFirst(2), radix: 16) : nil }),
      pid > 0, tid > 0, (1...64).contains(signal)
    else { return nil }
    return CrashReport(pid: pid, tid: tid, signal: signal, code: code, address: address)
  }
}
