import Foundation
import Glibc
import JetsamDaemonProcess

/// A terminal program run in a tmux session on a private tmux server: keys in (`send-keys`), the screen out
/// (`capture-pane`). For tests of full-screen views (`jetsamctl top`).
///
/// The server runs in the foreground (`tmux -D`) as this process's child, stopped by its pid: a daemonized server
/// would inherit the descriptor Foundation watches to see a client end, and no client would ever seem to end.
public final class TmuxSession {
  /// The private server's socket (`tmux -S`), so that no user's sessions are touched.
  private let socket: String
  private let server: ChildProcess

  /// Starts `command` (argv) in a `columns`×`rows` window.
  public init(_ command: [String], columns: Int = 120, rows: Int = 30) throws {
    socket = NSTemporaryDirectory() + "jetsam-tmux-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    // Through python3, to start it with no signal blocked: a test runs on a thread that blocks nearly all of them,
    // and a child inherits that mask, with which tmux would never see its panes end nor a request to stop.
    server = try ChildProcess(
      "/usr/bin/python3",
      [
        "-c",
        "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
        "/usr/bin/tmux", "-D", "-S", socket,
      ], environment: Self.environment)
    do {
      try waitUntil("tmux to listen on \(socket)", timeout: .seconds(10)) {
        FileManager.default.fileExists(atPath: socket)
      }
      let shellCommand = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        .joined(separator: " ")
      // Keeps the pane after the program ends, so that a test sees it has ended rather than a session gone.
      try run(
        ["new-session", "-d", "-s", "main", "-x", String(columns), "-y", String(rows), shellCommand, ";"]
          + ["set-option", "-t", "main", "remain-on-exit", "on"])
    } catch {
      close()
      throw error
    }
  }

  deinit { close() }

  /// The screen as text, one line per row.
  public func screen() throws -> String {
    try run(["capture-pane", "-p", "-t", "main"])
  }

  /// Types keys as tmux names them (`q`, `Enter`, `Escape`, `C-c`).
  public func send(_ keys: String...) throws {
    try run(["send-keys", "-t", "main"] + keys)
  }

  /// Whether the program in the pane has ended.
  public func hasEnded() throws -> Bool {
    try run(["display-message", "-p", "-t", "main", "#{pane_dead}"]).hasPrefix("1")
  }

  /// Waits until the screen satisfies `condition`; throws with the last screen when it does not in time.
  @discardableResult
  public func waitForScreen(
    _ what: String, timeout: Duration = .seconds(15), _ condition: (String) -> Bool
  ) throws -> String {
    var last = ""
    let shown = try eventually(timeout: timeout, interval: .milliseconds(50)) {
      last = try screen()
      return condition(last)
    }
    if shown { return last }
    throw TestKitError("timed out waiting for \(what); the screen:\n\(last)")
  }

  /// Stops the server (its panes get SIGHUP) and removes its socket.
  public func close() {
    if server.isRunning { _ = try? run(["kill-server"]) }
    _ = server.stop(signal: SIGTERM, grace: 5)
    unlink(socket)
  }

  /// Runs one tmux command against the server; its output.
  @discardableResult
  private func run(_ arguments: [String]) throws -> String {
    let result = try runCommand(
      "/usr/bin/tmux", ["-S", socket] + arguments, environment: Self.environment, timeout: .seconds(10))
    guard result.status == 0 else {
      throw TestKitError("tmux \(arguments.first ?? "") failed (\(result.status)): \(result.stderr)")
    }
    return result.stdout
  }

  /// This process's environment with a TERM (tmux needs one).
  private static var environment: [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["TERM"] = environment["TERM"] ?? "xterm-256color"
    return environment
  }
}
