import CJetsamShim
import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamProtocol

/// `jetsamctl top`: a live view made of one `exits` and one `watch` request on one connection, redrawn as jetsamd
/// pushes changes. Full screen on a terminal; plain tables every interval otherwise.
struct Top {
  private let socket: String
  private let interval: Double
  /// Plain mode: stop after this many tables.
  private let iterations: Int?

  init(_ invocation: Invocation) throws {
    let args = try VerbArguments(
      invocation.rest, valued: ["--interval", "--iterations"], flags: [], verb: "top")
    guard args.positional.isEmpty else { throw CLIError.usage("top takes no positional arguments") }
    socket = invocation.socket
    interval = try args.one("--interval").map(parseInterval) ?? 1
    iterations = try args.one("--iterations").map { text in
      guard let count = Int(text), count > 0 else {
        throw CLIError.usage("--iterations: \"\(text)\" is not a count (1 or more)")
      }
      return count
    }
  }

  func run() throws {
    let client = try ControlClient(path: socket)
    var recent = ControlRequest(verb: .exits)
    recent.limit = TopModel.exitsShown
    var watch = ControlRequest(verb: .watch)
    watch.interval = interval
    let answers = try client.pipeline([try client.encode(recent), try client.encode(watch)])
    for answer in answers where !answer.ok {
      throw CLIError.failed(answer.error?.message ?? "request failed")
    }
    guard let snapshot = answers[1].watch else { throw CLIError.failed("jetsamd sent no snapshot") }
    var model = TopModel(snapshot: snapshot, exits: answers[0].exits ?? [])
    if isatty(STDOUT_FILENO) == 1 && isatty(STDIN_FILENO) == 1 {
      var screen = FullScreen(client: client)
      try screen.run(&model)
    } else {
      try plain(client: client, model: &model)
    }
  }

  /// One table per memory sample (every interval), as `top -b` does.
  private func plain(client: ControlClient, model: inout TopModel) throws {
    var printed = 0
    func frame() {
      for line in TopScreen(model: model, width: 160, height: nil).lines(now: MonotonicClock.nanoseconds()) {
        print(line.text)
      }
      print("")
      printed += 1
    }
    frame()
    while iterations.map({ printed < $0 }) ?? true, let line = try client.nextResponse() {
      guard let change = line.change else { continue }
      model.apply(change)
      if change.kind == .memory { frame() }
    }
  }
}

/// The terminal side of `top`: keys in, frames out, redrawn at most ten times a second and at least once a second.
private struct FullScreen {
  let client: ControlClient
  /// Typing a filter (after `/`).
  private var editingFilter = false

  init(client: ControlClient) { self.client = client }

  mutating func run(_ model: inout TopModel) throws {
    guard jetsam_terminal_enter_full_screen(STDIN_FILENO) == 0 else {
      throw CLIError.failed("cannot set up the terminal: \(String(cString: strerror(errno)))")
    }
    defer { jetsam_terminal_leave_full_screen() }
    var lastDraw: Int64 = 0
    var dirty = true
    while true {
      let now = MonotonicClock.nanoseconds()
      if dirty && now - lastDraw >= 100_000_000 || now - lastDraw >= 1_000_000_000 {
        draw(model, now: now)
        lastDraw = now
        dirty = false
      }
      while client.hasBufferedLine {
        guard let line = try client.nextResponse() else { return }
        if let change = line.change {
          model.apply(change)
          dirty = true
        }
      }
      var fds = [
        pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
        pollfd(fd: client.socketDescriptor, events: Int16(POLLIN), revents: 0),
      ]
      let wait = dirty ? 100 : 1000
      guard poll(&fds, 2, Int32(wait)) >= 0 || errno == EINTR else {
        throw CLIError.failed("poll: \(String(cString: strerror(errno)))")
      }
      if fds[1].revents != 0 {
        guard let line = try client.nextResponse() else {
          throw CLIError.failed("jetsamd closed the connection")
        }
        if let change = line.change {
          model.apply(change)
          dirty = true
        }
      }
      if fds[0].revents != 0 {
        var byte: UInt8 = 0
        guard read(STDIN_FILENO, &byte, 1) == 1 else { return }
        if !handle(key: byte, model: &model) { return }
        dirty = true
        lastDraw = 0
      }
    }
  }

  /// Takes one key; false to quit.
  private mutating func handle(key: UInt8, model: inout TopModel) -> Bool {
    if editingFilter {
      switch key {
      case 13, 10: editingFilter = false
      case 27:
        model.filter = ""
        editingFilter = false
      case 127, 8: if !model.filter.isEmpty { model.filter.removeLast() }
      case 3: return false
      case 32...126: model.filter.append(Character(UnicodeScalar(key)))
      default: break
      }
      return true
    }
    switch key {
    case UInt8(ascii: "q"), 3: return false
    case UInt8(ascii: "s"): model.nextSort()
    case UInt8(ascii: "r"): model.reversed.toggle()
    case UInt8(ascii: "/"):
      editingFilter = true
      model.filter = ""
    case 27: model.filter = ""
    default: break
    }
    return true
  }

  private func draw(_ model: TopModel, now: Int64) {
    var rows: UInt16 = 24
    var columns: UInt16 = 80
    _ = jetsam_terminal_size(STDOUT_FILENO, &rows, &columns)
    let screen = TopScreen(model: model, width: Int(columns), height: Int(rows))
    var lines = screen.lines(now: now)
    if editingFilter { lines[lines.count - 1] = .init(text: "filter: \(model.filter)_", style: .plain) }
    var output = "\u{1B}[H"
    for (index, line) in lines.enumerated() {
      let text = line.text.count > Int(columns) ? String(line.text.prefix(Int(columns))) : line.text
      output += line.style == .header ? "\u{1B}[7m\(text)\u{1B}[K\u{1B}[0m" : text + "\u{1B}[K"
      if index < lines.count - 1 { output += "\r\n" }
    }
    output += "\u{1B}[J"
    FileHandle.standardOutput.write(Data(output.utf8))
  }
}

extension MonotonicClock {
  /// CLOCK_MONOTONIC now, in nanoseconds (the clock of jetsamd's `monotonicNanoseconds`).
  static func nanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}

/// jetsamctl's own clock (the shell's is not linked into the CLI).
enum MonotonicClock {}
