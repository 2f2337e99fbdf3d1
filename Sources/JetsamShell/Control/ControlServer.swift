import CJetsamShim
import CSystemd
import FoundationEssentials
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamSpawning

/// The control socket: a Unix stream socket speaking one JSON object per line (see PROTOCOL-CONTROL.md).
///
/// Every connection is non-blocking and bounded: a request line longer than
/// ``ControlProtocol/maxRequestBytes`` is answered with `requestTooLarge` and skipped without being
/// buffered, and what waits for a client that does not read is held to the daemon's ``OutputBudget`` (a client
/// past it is dropped after a `tooMuchUnread` line), so no client can block or bloat the daemon. Connections are
/// capped in total (``maxConnections``) and per user (``maxConnectionsPerUser``, root exempt): one more is answered
/// `tooManyConnections` and closed.
///
/// Root and jetsamd's own user are let in at once. Another user's membership of the control group is asked of the
/// user and group databases off the loop (``ThreadUserDirectory``): its connection is accepted at once and its
/// requests wait in its socket until the answer is back, so a slow directory (sssd, LDAP) holds only that client.
final class ControlServer {
  /// Open connections at most, and per peer user (root is held only to the total).
  static let maxConnections = 256
  static let maxConnectionsPerUser = 32

  /// Answers a request now, or returns nil and answers later with ``ControlConnection/reply(_:)`` (a suspend
  /// is answered once the apps' processes are seen stopped). A connection's later requests wait their turn.
  typealias Handler = (ControlRequest, ControlConnection) -> ControlResponse?

  let path: String
  private let listener: FileDescriptor
  private var acceptor: ConnectionAcceptor?
  private let loop: EventLoop
  private let log: Logger
  private let handler: Handler
  private let allowedGroup: gid_t?
  private let users: ThreadUserDirectory
  private let budget: OutputBudget
  private var connections: [Int32: ControlConnection] = [:]
  /// Encodes what goes to many clients (a change, a followed record) once for all of them.
  private let encoder = JSONEncoder.stable
  /// Whether systemd passed the listening socket (socket activation): it then owns the socket file.
  let activated: Bool

  init(
    loop: EventLoop, path: String, allowedGroup: String?, users: ThreadUserDirectory, log: Logger,
    budget: OutputBudget, inherited: FileDescriptor?, handler: @escaping Handler
  ) throws {
    self.loop = loop
    self.users = users
    self.budget = budget
    self.path = path
    self.log = log
    self.handler = handler
    self.allowedGroup = allowedGroup.flatMap { name in getgrnam(name).map { $0.pointee.gr_gid } }

    // Socket activation (jetsamd.socket): systemd created the socket and keeps it across daemon restarts, so
    // jetsamctl works from boot and no connection is refused while jetsamd restarts.
    if let inherited {
      activated = true
      listener = inherited
      _ = fcntl(inherited.rawValue, F_SETFL, fcntl(inherited.rawValue, F_GETFL) | O_NONBLOCK)
      acceptor = try ConnectionAcceptor(loop: loop, listener: inherited, name: "control socket \(path)", log: log) {
        [unowned self] in self.accepted($0)
      }
      return
    }
    activated = false

    try FileManager.default.createDirectory(
      atPath: directoryPart(of: path), withIntermediateDirectories: true)
    listener = try UnixSocket.make(SOCK_STREAM)
    let fd = listener.rawValue
    do {
      try ControlServer.removeStaleSocket(path)
      try UnixSocket.bind(listener, to: path)
      // The file's mode matches the access rule: root and the control group (checked again per peer).
      chmod(path, self.allowedGroup == nil ? 0o600 : 0o660)
      if let gid = self.allowedGroup { chown(path, 0, gid) }
      try systemCall("listen \(path)") { listen(fd, 64) }
      acceptor = try ConnectionAcceptor(loop: loop, listener: listener, name: "control socket \(path)", log: log) {
        [unowned self] in self.accepted($0)
      }
    } catch {
      listener.close()
      throw error
    }
  }

  /// Refuses new connections (shutdown); existing ones are served until ``close()``.
  func stopAccepting() {
    acceptor?.cancel()
    acceptor = nil
  }

  /// Closes every connection and the socket, removing its file.
  func close() {
    stopAccepting()
    for connection in Array(connections.values) { connection.close() }
    connections = [:]
    listener.close()
    if !activated { unlink(path) }
  }

  /// Whether `fd` is a listening Unix stream socket (the one jetsamd.socket passes).
  static func isListeningSocket(_ fd: Int32) -> Bool {
    sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0
  }

  /// Sends a new exit record to every `exits --follow` client whose filter matches.
  func broadcast(_ record: ExitRecord) {
    var response = ControlResponse(ok: true)
    response.event = "exit"
    response.record = record
    send(response, to: connections.values.filter { $0.follow?.wants(record) == true })
  }

  /// Whether any client watches (``LiveFeed`` builds nothing otherwise).
  var hasWatchers: Bool { connections.values.contains { $0.watch != nil } }

  /// The clients that watch.
  var watchers: [ControlConnection] { connections.values.filter { $0.watch != nil } }

  /// Sends a change to every `watch` client.
  func publish(_ change: LiveChange) { send(.change(change), to: watchers) }

  /// Sends one line to each of `clients`, encoded once.
  func send(_ response: ControlResponse, to clients: [ControlConnection]) {
    guard !clients.isEmpty else { return }
    let line = response.line(encoder: encoder)
    for connection in clients { connection.send(line: line) }
  }

  /// A new connection: refused when one too many, else served.
  private func accepted(_ descriptor: FileDescriptor) {
    let fd = descriptor.rawValue
    let credentials = peerCredentials(fd)
    let peer = credentials?.uid
    if let refusal = connectionRefusal(for: peer) {
      // Best effort and never blocking: the answer fits any socket buffer.
      let line =
        Array(#"{"error":{"code":"tooManyConnections","message":"\#(refusal)"},"ok":false,"v":1}"#.utf8) + [10]
      _ = line.withUnsafeBytes { jetsam_send_nonblocking(fd, $0.baseAddress, $0.count) }
      Glibc.close(fd)
      log.warning("refused a control connection (uid \(peer.map(String.init) ?? "?")): \(refusal)")
      return
    }
    do {
      // A request may be maxRequestBytes long; the stream's limit counts its newline too. The handler finds its
      // connection by descriptor rather than capturing it: the connection owns the stream, so a captured
      // connection would keep both alive after the close (a reply-sized buffer leaked per connection).
      // Its output is held to the budget alone (which drops it with a last line), not to a cap of the stream's.
      let stream = try LineStream(
        fd: FileDescriptor(rawValue: fd), loop: loop, maxLineBytes: ControlProtocol.maxRequestBytes + 1,
        maxQueuedOutput: .max
      ) { [unowned self] input in
        if let connection = self.connections[fd] { self.answer(input, on: connection) }
      }
      stream.onClose = { [unowned self] in
        if let connection = self.connections.removeValue(forKey: fd) { self.budget.release(connection) }
      }
      let connection = ControlConnection(stream: stream, budget: budget)
      connection.peerUser = peer
      connections[fd] = connection
      checkPeer(connection, credentials)
    } catch {
      log.warning("watching a control connection: \(error)")
      Glibc.close(fd)
    }
  }

  /// The connecting process's user and group (SO_PEERCRED), read once per connection.
  private func peerCredentials(_ fd: Int32) -> (uid: uid_t, gid: gid_t)? {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
    return jetsam_peer_credentials(fd, &pid, &uid, &gid) == 0 ? (uid, gid) : nil
  }

  /// Why a new connection from `user` is one too many, or nil.
  private func connectionRefusal(for user: uid_t?) -> String? {
    if connections.count >= ControlServer.maxConnections {
      return "\(ControlServer.maxConnections) control connections are open"
    }
    if user != 0, connections.values.count(where: { $0.peerUser == user }) >= ControlServer.maxConnectionsPerUser {
      return "\(ControlServer.maxConnectionsPerUser) control connections of this user are open"
    }
    return nil
  }

  /// Decides whether `connection` may control jetsamd: root and jetsamd's own user may, and a member of the
  /// control group (by the group it connected with, or its user's groups). What needs the databases (a member's
  /// groups; the login name an ad-hoc launch runs as) is looked up off the loop while the connection's requests
  /// wait unread in its socket, bounded as behind a reply that comes later; then they are served or refused.
  private func checkPeer(_ connection: ControlConnection, _ credentials: (uid: uid_t, gid: gid_t)?) {
    guard let credentials, credentials.uid != 0 else {
      connection.permitted = credentials != nil
      return
    }
    let isOwnUser = credentials.uid == geteuid()
    // Without a control group another user is refused: nothing to look up.
    guard isOwnUser || allowedGroup != nil else { return }
    connection.stream.pauseReading()
    users.peer(uid: credentials.uid, gid: credentials.gid) { [weak connection, allowedGroup] identity in
      guard let connection, !connection.closed else { return }
      connection.peerName = identity.name
      connection.permitted =
        isOwnUser || allowedGroup.map { credentials.gid == $0 || identity.groups.contains($0) } ?? false
      connection.stream.resumeReading()
    }
  }

  private func answer(_ input: LineStream.Input, on connection: ControlConnection) {
    let response: ControlResponse
    switch input {
    case .tooLong:
      response = .failure(
        ControlError(.requestTooLarge, "request longer than \(ControlProtocol.maxRequestBytes) bytes"))
    case .line(let bytes):
      if !connection.permitted {
        response = .failure(
          ControlError(
            .permissionDenied, "permission denied: only root and members of the control group may control jetsamd"))
      } else {
        switch ControlRequestParser.parse(bytes) {
        case .failure(let error): response = .failure(error)
        case .success(let request):
          guard let answered = handler(request, connection) else {
            // Answered later: the client's next requests wait in its socket until then, in order.
            connection.awaitingReply = true
            connection.stream.pauseReading()
            return
          }
          response = answered
        }
      }
    }
    connection.send(response)
  }

  /// Removes a socket file left by a daemon that died; refuses if another daemon still answers on it.
  private static func removeStaleSocket(_ path: String) throws {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    guard (st.st_mode & S_IFMT) == S_IFSOCK else {
      throw SystemError(code: EEXIST, "\(path) exists and is not a socket")
    }
    let probe = try UnixSocket.make(SOCK_STREAM)
    defer { probe.close() }
    // EAGAIN: a live daemon whose backlog is full, in use all the same.
    if try UnixSocket.connect(probe, to: path) == 0 || errno == EAGAIN {
      throw SystemError(code: EADDRINUSE, "another jetsamd is listening on \(path)")
    }
    unlink(path)
  }
}

/// Which new exit records a following client wants.
struct FollowFilter {
  var app: String?
  /// Only records with a verdict (`exits --verdicts`).
  var judgedOnly = false

  func wants(_ record: ExitRecord) -> Bool {
    (app == nil || app == record.app) && (!judgedOnly || record.savedState.hasVerdict)
  }
}

/// One client of the control socket.
final class ControlConnection: OutputHolder {
  let stream: LineStream
  var permitted = false
  /// The peer's user, as SO_PEERCRED told at connect time.
  var peerUser: uid_t?
  /// The peer's login name, from the password database once the peer check is back (never looked up for root).
  var peerName: String?
  /// Set by `exits --follow`: new records stream to this client.
  var follow: FollowFilter?
  /// Set by `watch`: changes stream to this client.
  var watch: WatchSubscription?
  /// Set while a request of this client is answered later; its stream is paused until then.
  var awaitingReply = false
  /// Lines (followed exit records, changes) that came while a reply was pending: they go out after it, in order.
  /// Counted against the budget as they wait, as if queued in the stream.
  private var outbox: [[UInt8]] = []
  private var outboxBytes = 0
  /// Set once the budget dropped it: it is sent nothing more but its last line.
  private var evicted = false
  private let encoder = JSONEncoder.stable
  private let budget: OutputBudget

  /// Serves `stream`, whose unread output (with the lines held back) is held to `budget`.
  init(stream: LineStream, budget: OutputBudget) {
    self.stream = stream
    self.budget = budget
    // Unowned: the connection owns the stream, which calls this only while open.
    stream.onQueuedOutput = { [unowned self] bytes in self.budget.update(self, owes: bytes + self.outboxBytes) }
  }

  var closed: Bool { stream.closed }

  var clientDescription: String { "control client (uid \(peerUser.map(String.init) ?? "?"))" }

  /// Queues one response line and writes as much as the socket takes now (after the pending reply, if any).
  func send(_ response: ControlResponse) { send(line: response.line(encoder: encoder)) }

  /// ``send(_:)`` with the line already encoded (once for every watcher).
  func send(line: [UInt8]) {
    // Closed, the budget has let go of it: nothing is counted again.
    guard !evicted, !stream.closed else { return }
    guard awaitingReply else { return stream.send(line) }
    outbox.append(line)
    outboxBytes += line.count + 1
    budget.update(self, owes: stream.queuedOutputBytes + outboxBytes)
  }

  /// Sends the answer to the request that was answered later, then goes on with the client's held requests.
  func reply(_ response: ControlResponse) { reply(line: response.line(encoder: encoder)) }

  /// ``reply(_:)`` with the answer already encoded (off the loop, for a large one).
  func reply(line: [UInt8]) {
    guard awaitingReply else { return }
    awaitingReply = false
    let held = outbox
    outbox = []
    outboxBytes = 0
    stream.send(line)
    for line in held { stream.send(line) }
    stream.resumeReading()
  }

  /// Drops the client, which holds too much unread output, after a `tooMuchUnread` line: it streams nothing more.
  func evict(because reason: String) {
    evicted = true
    watch = nil
    follow = nil
    outbox = []
    outboxBytes = 0
    stream.onQueuedOutput = nil
    stream.finish(lastLine: ControlResponse.failure(ControlError(.tooMuchUnread, reason)).line(encoder: encoder))
  }

  func close() { stream.close() }
}

extension ControlResponse {
  /// The answer as one JSON line (without its newline): written directly when it carries only apps, else by
  /// `encoder` (sorted keys, slashes unescaped).
  package func line(encoder: JSONEncoder) -> [UInt8] {
    if let fast = fastJSON() { return fast }
    guard let data = try? encoder.encode(self) else {
      // Never silence: a client waiting for an answer gets one (a value JSON cannot hold, such as a NaN).
      return Array(
        #"{"error":{"code":"internalError","message":"the answer could not be encoded"},"ok":false,"v":1}"#.utf8)
    }
    return Array(data)
  }
}
