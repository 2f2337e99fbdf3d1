import Glibc
import JetsamCore
import JetsamPlatform
import JetsamWire

/// The apps' channels (PROTOCOL.md): each line an app writes is decoded into a policy message (or answered with an
/// error), and the policy's events, replies and errors are encoded onto the channel of the app they are for.
final class AppChannels {
  private let loop: any LoopScheduling
  private let log: Logger
  /// Watches a channel descriptor, calling back with each line; the real one is ``AppChannel``.
  private let open: (FileDescriptor, @escaping (LineStream.Input) -> Void) throws -> any AppChannelEndpoint
  /// The running apps, whose channels these are.
  private let apps: RunningApps
  /// Where the apps' messages go (the policy).
  private let inbox: any ResultInbox

  init(
    loop: any LoopScheduling, log: Logger, apps: RunningApps, inbox: any ResultInbox,
    open: @escaping (FileDescriptor, @escaping (LineStream.Input) -> Void) throws -> any AppChannelEndpoint
  ) {
    self.loop = loop
    self.log = log
    self.apps = apps
    self.inbox = inbox
    self.open = open
  }

  /// The channel of app `name`'s process `pid`, if it has one.
  func endpoint(of name: String, pid: Int32) -> (any AppChannelEndpoint)? { apps.process(name, pid: pid)?.channel }

  /// Sends a lifecycle event down the app's channel.
  func deliver(_ event: AppEvent, to name: String, pid: Int32) {
    let line = AppProtocolCodec.event(event)
    log.debug("\(name) ← \(line.encoded)")
    endpoint(of: name, pid: pid)?.send(line)
  }

  /// Answers an app's request.
  func reply(to name: String, pid: Int32, requestID: Int, _ reply: AppReply) {
    endpoint(of: name, pid: pid)?.send(AppProtocolCodec.reply(requestID: requestID, reply))
  }

  /// Tells an app what was wrong with its line.
  func appError(to name: String, pid: Int32, requestID: Int?, code: AppProtocolErrorCode, message: String) {
    endpoint(of: name, pid: pid)?.send(AppProtocolCodec.error(code: code, message: message, requestID: requestID))
  }

  /// Watches `fd` as the app's channel; false (and the fd closed) if it cannot be watched.
  @discardableResult
  func attach(_ fd: FileDescriptor, to app: AppProcess) -> Bool {
    let name = app.name
    let pid = app.pid
    _ = fcntl(fd.rawValue, F_SETFL, fcntl(fd.rawValue, F_GETFL) | O_NONBLOCK)
    do {
      app.channel = try open(fd) { [unowned self] input in self.received(input, from: name, pid: pid) }
      return true
    } catch {
      fd.close()
      log.error("\(name)'s channel: \(error)")
      return false
    }
  }

  /// A line from an app's channel: decoded into a policy message, or answered with an error.
  private func received(_ input: LineStream.Input, from name: String, pid: Int32) {
    guard let channel = endpoint(of: name, pid: pid) else { return }
    switch input {
    case .tooLong:
      channel.send(AppProtocolCodec.tooLong)
    case .line(let bytes):
      do {
        let decoded = try AppProtocolCodec.decode(bytes)
        inbox.post(.observed([.appMessage(app: name, pid: pid, message: decoded.message, at: loop.now())]))
        // hello is answered by the channel itself, whatever the policy makes of it.
        if decoded.message == .hello, let id = decoded.requestID {
          channel.send(AppProtocolCodec.reply(requestID: id))
        }
      } catch {
        channel.send(AppProtocolCodec.error(code: error.code, message: error.message, requestID: error.requestID))
      }
    }
  }
}
