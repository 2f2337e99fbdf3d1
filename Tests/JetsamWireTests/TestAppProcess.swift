import Foundation
import Glibc
import JetsamWire
import Testing

/// `jetsam-testapp` (`Sources/jetsam-testapp`, the C test program) run with its app channel on one end of a
/// socketpair, as jetsamd runs it, and the daemon's end here.
final class TestAppProcess {
  /// The program, from `$JETSAM_BIN_DIR`, else beside the running test bundle (`.build/debug`).
  static var path: String {
    if let directory = ProcessInfo.processInfo.environment["JETSAM_BIN_DIR"], !directory.isEmpty {
      return directory + "/jetsam-testapp"
    }
    let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    return URL(filePath: bundle).deletingLastPathComponent().appending(path: "jetsam-testapp").path
  }

  private let pid: pid_t
  private let channel: Int32
  private let output: Int32
  private var framer = LineFramer()
  private var lines: [[UInt8]] = []
  private var reaped = false

  /// Starts `jetsam-testapp ARGUMENTS` with `JETSAM_FD=3` (``AppEnvironmentVariable``) and its standard output on a
  /// pipe.
  init(_ arguments: [String]) throws {
    let path = Self.path
    try #require(FileManager.default.isExecutableFile(atPath: path), "build jetsam-testapp first: \(path)")
    var pair: [Int32] = [-1, -1]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
    var pipeEnds: [Int32] = [-1, -1]
    try #require(pipe(&pipeEnds) == 0)
    for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    defer {
      _ = close(pair[1])
      _ = close(pipeEnds[1])
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // dup2 leaves the copies without close-on-exec, as jetsamd hands an app its channel on descriptor 3.
    posix_spawn_file_actions_adddup2(&actions, pair[1], 3)
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    // Named as jetsamd names them: a program that spells them otherwise finds no channel.
    let environment = [
      "\(AppEnvironmentVariable.channelDescriptor.rawValue)=3", "\(AppEnvironmentVariable.protocolVersion.rawValue)=1",
      "\(AppEnvironmentVariable.app.rawValue)=testapp",
    ]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
    defer {
      for pointer in argv + envp { free(pointer) }
    }
    var child: pid_t = 0
    let spawned = posix_spawn(&child, path, &actions, nil, argv, envp)
    if spawned != 0 {
      _ = close(pair[0])
      _ = close(pipeEnds[0])
    }
    try #require(spawned == 0, "posix_spawn \(path): errno \(spawned)")
    pid = child
    channel = pair[0]
    output = pipeEnds[0]
  }

  deinit {
    if !reaped {
      kill(pid, SIGKILL)
      _ = exitStatus()
    }
    _ = close(channel)
    _ = close(output)
  }

  /// Writes a line to the program's channel.
  func send(_ line: AppLine) {
    let bytes = Array((line.encoded + "\n").utf8)
    let written = bytes.withUnsafeBytes { write(channel, $0.baseAddress, $0.count) }
    #expect(written == bytes.count)
  }

  /// The next line the program wrote to its channel, parsed; nil if none came within the timeout.
  func readLine(timeout: Duration = .seconds(5)) throws -> AppLine? {
    let deadline = ContinuousClock.now + timeout
    while lines.isEmpty {
      guard let chunk = read(from: channel, until: deadline) else { return nil }
      for case .line(let line) in framer.append(chunk) { lines.append(line) }
    }
    return try AppLine(parsing: lines.removeFirst())
  }

  /// What the program wrote to its standard output until it had written `count` bytes, or the timeout passed.
  func standardOutput(bytes count: Int, timeout: Duration = .seconds(5)) -> String {
    let deadline = ContinuousClock.now + timeout
    var text: [UInt8] = []
    while text.count < count, let chunk = read(from: output, until: deadline) { text += chunk }
    return String(decoding: text, as: UTF8.self)
  }

  /// Waits for the program to exit: its exit code, or 128 plus the signal that ended it.
  func exitStatus() -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    reaped = true
    let signal = status & 0x7F
    return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
  }

  // The bytes one read returns once `descriptor` is readable; nil at the deadline or at end of file.
  private func read(from descriptor: Int32, until deadline: ContinuousClock.Instant) -> [UInt8]? {
    while true {
      let remaining = deadline - ContinuousClock.now
      guard remaining > .zero else { return nil }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let milliseconds = Int32(
        remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
      guard poll(&poller, 1, max(1, milliseconds)) > 0 else { continue }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { return nil }
      return Array(chunk[..<count])
    }
  }
}
