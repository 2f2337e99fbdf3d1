import Foundation
import Glibc
import JetsamCore

/// The shell's side of the app protocol (PROTOCOL.md): the channel's lines in and out, launch reasons, hooks.
extension Daemon {
  /// The descriptor number the channel has in every app (`JETSAM_FD`).
  static let channelDescriptor: Int32 = 3
  /// The name of an app's channel in systemd's descriptor store: `channel.NAME`.
  static let channelStorePrefix = "channel."

  /// Variables of jetsamd's own environment that must not leak into apps (they describe jetsamd, not them).
  static func isDaemonVariable(_ key: String) -> Bool {
    key.hasPrefix("JETSAM_")
      || ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID"].contains(key)
  }

  /// JETSAM_* variables for a launch: the channel, the counter, and why it is starting.
  func launchEnvironment(_ name: String, launch: Int) -> [String: String] {
    var environment = [
      "JETSAM_FD": String(Daemon.channelDescriptor), "JETSAM_PROTOCOL": "1", "JETSAM_APP": name,
      "JETSAM_LAUNCH": String(launch), "JETSAM_LAUNCH_REASON": lastExits[name] == nil ? "fresh" : "afterExit",
    ]
    if let previous = lastExits[name] {
      environment["JETSAM_PREVIOUS_EXIT"] = AppLine("", previousExitFields(previous)).encoded.trimmingCharacters(
        in: .whitespaces)
      if let summary = previous.stateSummary { environment["JETSAM_STATE_SUMMARY"] = AppLine.percentEncode(summary) }
    }
    return environment
  }

  private func previousExitFields(_ record: ExitRecord) -> [(String, String)] {
    [("reason", record.reason.rawValue), ("state", record.state), ("time", record.time)]
  }

  func openChannel(_ fd: FileDescriptor, for app: AppProcess) {
    guard attachChannel(fd, to: app) else { return }
    let name = app.name
    let pid = app.pid
    // Under systemd the channel outlives a jetsamd restart in the descriptor store: the app keeps talking.
    serviceManager.storeDescriptor(fd.rawValue, name: Daemon.channelStorePrefix + name)
    app.channel?.send(AppLine("hello", [("version", "1"), ("app", name), ("launch", String(app.launch))]))
    // An app whose acknowledgements are always expected is watched from its first event.
    if app.acknowledgements == .always {
      enqueue(.appMessage(app: name, pid: pid, message: .hello, at: MonotonicClock.now()))
    }
  }

  /// Watches `fd` as the app's channel; false (and the fd closed) if it cannot be watched.
  @discardableResult
  func attachChannel(_ fd: FileDescriptor, to app: AppProcess) -> Bool {
    let name = app.name
    let pid = app.pid
    _ = fcntl(fd.rawValue, F_SETFL, fcntl(fd.rawValue, F_GETFL) | O_NONBLOCK)
    do {
      app.channel = try AppChannel(fd: fd, loop: loop) { [unowned self] input in
        self.received(input, from: name, pid: pid)
      }
      return true
    } catch {
      fd.close()
      log.error("\(name)'s channel: \(error)")
      return false
    }
  }

  func channel(of name: String, pid: Int32) -> AppChannel? {
    guard let app = processes[name], app.pid == pid else { return nil }
    return app.channel
  }

  func sendError(to name: String, pid: Int32, requestID: Int?, code: String, message: String) {
    var fields = [("code", code), ("message", message)]
    if let requestID { fields.append(("id", String(requestID))) }
    channel(of: name, pid: pid)?.send(AppLine("error", fields))
  }

  // MARK: Lines from the app

  private func received(_ input: LineStream.Input, from name: String, pid: Int32) {
    guard let app = processes[name], app.pid == pid else { return }
    let line: AppLine
    switch input {
    case .tooLong:
      return sendError(
        to: name, pid: pid, requestID: nil, code: "tooLong", message: "lines are at most \(AppLine.maxBytes) bytes")
    case .line(let bytes):
      let text = Substring(String(decoding: bytes, as: UTF8.self))
      guard let parsed = AppLine.parse(text) else {
        let preview = String(text.prefix(40))
        return sendError(
          to: name, pid: pid, requestID: nil, code: "badLine", message: "not WORD key=value…: \(preview)")
      }
      line = parsed
    }
    let requestID = line["id"].flatMap { Int($0) }
    do {
      let message = try appMessage(from: line, app: app, requestID: requestID)
      // In auto mode the first valid line is the app's hello.
      if !app.hasSpoken {
        app.hasSpoken = true
        if app.acknowledgements == .auto, message != .hello {
          dispatch(.appMessage(app: name, pid: pid, message: .hello, at: MonotonicClock.now()))
        }
      }
      if let message {
        if message == .hello && app.acknowledgements == .never { return replyIfAsked(name, pid, requestID) }
        dispatch(.appMessage(app: name, pid: pid, message: message, at: MonotonicClock.now()))
        if message == .hello { replyIfAsked(name, pid, requestID) }
      }
    } catch let error as ChannelError {
      sendError(to: name, pid: pid, requestID: requestID, code: error.code, message: error.message)
    } catch {
      sendError(to: name, pid: pid, requestID: requestID, code: "badLine", message: "\(error)")
    }
  }

  private func replyIfAsked(_ name: String, _ pid: Int32, _ requestID: Int?) {
    if let requestID { channel(of: name, pid: pid)?.send(AppLine("reply", [("id", String(requestID))])) }
  }

  struct ChannelError: Error {
    var code: String
    var message: String
  }

  /// The policy's message for a line, or nil for what the shell keeps itself (summaries, digests).
  private func appMessage(from line: AppLine, app: AppProcess, requestID: Int?) throws -> AppMessage? {
    func integer(_ key: String) throws -> Int {
      guard let text = line[key] else {
        throw ChannelError(code: "missingField", message: "\(line.word) needs \(key)=")
      }
      guard let value = Int(text) else {
        throw ChannelError(code: "badLine", message: "\(key)=\(text) is not a number")
      }
      return value
    }
    func text(_ key: String) throws -> String {
      guard let value = line[key] else {
        throw ChannelError(code: "missingField", message: "\(line.word) needs \(key)=")
      }
      return value
    }
    switch line.word {
    case "hello":
      return .hello
    case "ack":
      return .acknowledge(event: try integer("event"))
    case "beginBackgroundTask":
      return .beginBackgroundTask(requestID: try integer("id"), name: line["name"] ?? "")
    case "endBackgroundTask":
      return .endBackgroundTask(task: try integer("task"), requestID: requestID)
    case "backgroundTimeRemaining":
      return .backgroundTimeRemaining(requestID: try integer("id"))
    case "stateSummary":
      let value = try text("value")
      guard value.utf8.count <= 128 else {
        throw ChannelError(code: "tooLarge", message: "a state summary is at most 128 bytes (got \(value.utf8.count))")
      }
      // An empty value clears the summary.
      app.summary = value.isEmpty ? nil : value
      stateDirty = true
      replyIfAsked(app.name, app.pid, requestID)
      return nil
    case "stateDigest":
      let value = try text("value")
      switch line["phase"] {
      case "saved": app.savedDigest = value
      case "restored": app.restoredDigest = value
      default: throw ChannelError(code: "badLine", message: "stateDigest needs phase=saved or phase=restored")
      }
      stateDirty = true
      replyIfAsked(app.name, app.pid, requestID)
      return nil
    default:
      throw ChannelError(code: "unknownWord", message: "unknown message \"\(line.word)\"")
    }
  }

  // MARK: Events to the app

  func deliver(_ event: AppEvent, to name: String, pid: Int32) {
    guard let app = processes[name], app.pid == pid else { return }
    var fields: [(String, String)] = [("id", String(event.id)), ("name", event.kind.rawValue)]
    switch event.kind {
    case .didFinishLaunching:
      if let previous = lastExits[name], previous.launch < app.launch {
        fields.append(("reason", "afterExit"))
        fields += previousExitFields(previous).map {
          ("previous" + $0.0.prefix(1).uppercased() + $0.0.dropFirst(), $0.1)
        }
        if let summary = previous.stateSummary { fields.append(("summary", summary)) }
      } else {
        fields.append(("reason", "fresh"))
      }
      fields.append(("state", event.launchesToForeground == false ? "background" : "foreground"))
    case .memoryWarning:
      fields.append(("level", (event.level ?? .warning).name))
    case .backgroundTaskWillExpire:
      fields.append(("task", String(event.task ?? 0)))
      fields.append(("taskName", event.taskName ?? ""))
    default: break
    }
    let line = AppLine("event", fields)
    log.debug("\(name) ← \(line.encoded)")
    app.channel?.send(line)
    if let hook = app.hooks[event.kind] { runHook(hook, for: event, app: app) }
  }

  /// A hook acts for a program that cannot answer an event itself: a signal, or a command whose exit is
  /// the acknowledgement (with its own deadline).
  private func runHook(_ hook: LifecycleHook, for event: AppEvent, app: AppProcess) {
    if let signal = hook.signal {
      for pid in (try? app.cgroup.processIDs()) ?? [] { Glibc.kill(pid, signal) }
      return
    }
    guard let command = hook.command else { return }
    let name = app.name
    let pid = app.pid
    do {
      let output = try FileDescriptor.open(
        "\(stateDirectory)/logs/\(name).log", O_WRONLY | O_APPEND | O_CREAT, mode: 0o640)
      defer { output.close() }
      let process = try spawnProcess(
        SpawnRequest(
          arguments: command,
          environment: [
            "PATH=/usr/local/bin:/usr/bin:/bin", "JETSAM_APP=\(name)", "JETSAM_EVENT=\(event.kind.rawValue)",
          ],
          workingDirectory: launchSpecs[name]?.workingDirectory ?? stateDirectory,
          cgroupDirectory: app.cgroup.spawnDirectory,
          joinProcsFiles: app.cgroup.joinProcsFiles, oomScoreAdj: oomScoreAdj(for: .foreground), stdout: output,
          stderr: output))
      let hookProcess = HookProcess(process: process)
      app.hookProcesses.append(hookProcess)
      hookProcess.source = try loop.watch(fd: process.pidfd.rawValue, events: EpollEvents.readable) {
        [unowned self] _ in
        _ = try? reapExit(pidfd: process.pidfd)
        hookProcess.close()
        self.processes[name]?.hookProcesses.removeAll { $0 === hookProcess }
        self.dispatch(
          .appMessage(app: name, pid: pid, message: .acknowledge(event: event.id), at: MonotonicClock.now()))
      }
      enqueue(
        .appMessage(
          app: name, pid: pid, message: .watch(event: event.id, timeout: hook.timeout?.duration),
          at: MonotonicClock.now()))
    } catch {
      log.error("\(name)'s \(event.kind.rawValue) hook \(command.joined(separator: " ")): \(error)")
    }
  }
}

/// A hook command running for a lifecycle event.
final class HookProcess {
  let process: SpawnedProcess
  var source: EventSource?
  init(process: SpawnedProcess) { self.process = process }
  func close() {
    source?.cancel()
    source = nil
    process.pidfd.close()
  }
}
