import Dispatch
import Foundation
import Glibc
import JetsamWire
import Synchronization
import Testing

@testable import JetsamClient

/// The daemon's end of a `socketpair`, driven line by line from a test.
final class FakeDaemon {
  /// The daemon's end.
  private let descriptor: Int32
  /// The app's end, handed to the client (which owns it from then on).
  let appDescriptor: Int32
  private var buffer: [UInt8] = []
  private var closed = false

  init() throws {
    var pair: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else {
      throw JetsamClientError.invalidDescriptor("socketpair failed: errno \(errno)")
    }
    descriptor = pair[0]
    appDescriptor = pair[1]
  }

  deinit {
    close()
  }

  /// Connects a client to the app's end and reads its `hello`.
  func connectApp(
    environment: [String: String] = [:], replyTimeout: Duration = .seconds(5)
  ) throws -> JetsamApplication {
    let app = try JetsamApplication(
      fileDescriptor: appDescriptor, environment: environment, replyTimeout: replyTimeout)
    #expect(readLine() == AppLine(AppMessageWord.hello, [(.version, "1")]).encoded)
    return app
  }

  /// Writes a line built from the protocol's vocabulary.
  func send(_ line: AppLine) {
    send(line.encoded)
  }

  /// Writes a line (a `\n` is added).
  func send(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    #expect(written == bytes.count)
  }

  /// Reads the next line the app wrote.
  ///
  /// - Parameter timeout: How long to wait for it.
  /// - Returns: The line without its `\n`, or `nil` on timeout or end-of-file.
  func readLine(timeout: Duration = .seconds(5)) -> String? {
    let deadline = ContinuousClock.now + timeout
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
      }
      let remaining = deadline - ContinuousClock.now
      guard remaining > .zero else { return nil }
      let milliseconds = Int32(
        remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, max(1, milliseconds)) > 0 else { continue }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { return nil }
      buffer += chunk[..<count]
    }
  }

  /// Reads a request line and returns it with its `id`.
  func readRequest(timeout: Duration = .seconds(5)) throws -> (line: AppLine, id: Int) {
    let text = try #require(readLine(timeout: timeout))
    let line = try AppLine(parsing: text)
    return (line, try #require(line.integer(.id), "no id in \(text)"))
  }

  /// Hangs up, as a daemon that stops.
  func close() {
    guard !closed else { return }
    closed = true
    _ = Glibc.close(descriptor)
  }
}

/// Runs a closure on a thread of its own, for calls that block (the event loop, requests).
final class Background<Value: Sendable>: Sendable {
  private let done = DispatchSemaphore(value: 0)
  private let result = Mutex<Value?>(nil)

  init(_ body: @escaping @Sendable () -> Value) {
    let thread = Thread { [self] in
      let value = body()
      result.withLock { $0 = value }
      done.signal()
    }
    thread.start()
  }

  /// The closure's result, or `nil` if it has not returned within the timeout.
  func value(timeout: Duration = .seconds(5)) -> Value? {
    let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    guard done.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return nil }
    done.signal()
    return result.withLock { $0 }
  }
}

/// A semaphore-backed one-shot flag a test can wait on.
final class Flag: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)

  func raise() {
    semaphore.signal()
  }

  /// Whether the flag was raised within the timeout.
  func wait(timeout: Duration = .seconds(5)) -> Bool {
    let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    guard semaphore.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return false }
    semaphore.signal()
    return true
  }
}

/// Collects what the client reports to its error handler.
final class ErrorLog: Sendable {
  private let errors = Mutex<[JetsamClientError]>([])

  var all: [JetsamClientError] { errors.withLock { $0 } }

  func attach(to app: JetsamApplication) {
    app.errorHandler = { [self] error in errors.withLock { $0.append(error) } }
  }
}
