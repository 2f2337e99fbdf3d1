import CJetsamShim
import FoundationEssentials
import Glibc
import JetsamPlatform
import JetsamValues

/// The spawner service (`jetsam-spawner`): starts the programs jetsamd asks for and reaps them, so that jetsamd
/// itself can run in a tighter sandbox than its apps (no network, no namespaces, no setuid) and its apps are
/// not bound by it.
///
/// It listens on a Unix `SOCK_SEQPACKET` socket that only its own user (root) may use, and serves one jetsamd at a
/// time (a new connection replaces the old one: a restarted jetsamd). Each request is started with
/// ``spawnProcess(_:)``, exactly as jetsamd would, and answered with the process's pidfd. The service is the
/// parent of every app: it reaps each and tells jetsamd how it ended, keeping what a jetsamd that is away (a
/// restart) has not heard yet, so that no exit status is lost to a daemon restart.
public final class SpawnerService {
  /// The most exit statuses kept for a jetsamd that is away (the oldest go first).
  static let maxUnsentExits = 8192

  private let loop: SpawnerLoop
  private let log: Logger
  private let listener: FileDescriptor
  private var listenSource: SpawnerLoopSource?
  private var childStatusSource: SpawnerLoopSource?
  private var client: Client?
  /// Children not reaped yet, by pid.
  private var children: [Int32: Child] = [:]
  /// Exits a jetsamd has not heard of yet (it was away, or its socket was full).
  private var unsentExits: [SpawnerReply] = []

  private final class Child {
    let pidfd: FileDescriptor
    /// The app it is, as its request named it.
    let app: String?
    var source: SpawnerLoopSource?
    init(pidfd: FileDescriptor, app: String?) {
      self.pidfd = pidfd
      self.app = app
    }
  }

  /// The connected jetsamd, with what could not be sent yet (its socket was full).
  private final class Client {
    let socket: PacketSocket
    var source: SpawnerLoopSource?
    var outbox: [(bytes: [UInt8], descriptor: FileDescriptor?)] = []
    init(socket: PacketSocket) { self.socket = socket }

    func close() {
      source?.cancel()
      for message in outbox { message.descriptor?.close() }
      outbox = []
      socket.fd.close()
    }
  }

  /// Serves on `listener`, a bound and listening `SOCK_SEQPACKET` socket (owned by the service from now on).
  /// SIGCHLD must be blocked in every thread already: the loop takes it through a signalfd.
  public init(loop: SpawnerLoop, listener: FileDescriptor, log: Logger) throws(SystemError) {
    self.loop = loop
    self.listener = listener
    self.log = log
    _ = fcntl(listener.rawValue, F_SETFL, fcntl(listener.rawValue, F_GETFL) | O_NONBLOCK)
    listenSource = try loop.watch(fd: listener.rawValue, events: EpollEvents.readable) { [unowned self] _ in
      self.acceptAll()
    }
    // Every SIGCHLD, whatever its code (signals merge): a child someone continued is told to jetsamd, which is
    // not its parent and hears nothing of it otherwise.
    childStatusSource = try loop.onSignal(.childStatusChanged) { [unowned self] in
      for (pid, child) in self.children.sorted(by: { $0.key < $1.key }) where takeContinued(pidfd: child.pidfd) {
        self.send(.continued(pid: pid))
      }
    }
  }

  /// A listening `SOCK_SEQPACKET` socket at `path` (mode 0600: only root may ask for spawns), replacing a stale
  /// socket file.
  public static func listen(at path: String) throws(SystemError) -> FileDescriptor {
    let fd = try UnixSocket.make(UnixSocket.seqpacket)
    do {
      var st = stat()
      if lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK { unlink(path) }
      try UnixSocket.bind(fd, to: path)
      chmod(path, 0o600)
      try systemCall("listen \(path)") { Glibc.listen(fd.rawValue, 8) }
      return fd
    } catch {
      fd.close()
      throw error
    }
  }

  /// The children not reaped yet.
  public var childCount: Int { children.count }

  // MARK: Connections

  private func acceptAll() {
    while true {
      let fd = jetsam_accept_nonblocking(listener.rawValue)
      guard fd >= 0 else { return }
      var pid: pid_t = 0
      var uid: uid_t = 0
      var gid: gid_t = 0
      // Only our own user (root) may have programs started: the socket's mode says so too, and this is checked
      // again in case the file was made reachable.
      guard jetsam_peer_credentials(fd, &pid, &uid, &gid) == 0, uid == geteuid() else {
        log.warning("refused a connection from uid \(uid) (pid \(pid)): only uid \(geteuid()) may ask for spawns")
        Glibc.close(fd)
        continue
      }
      if let old = client {
        log.notice("a new jetsamd (pid \(pid)) connected: the previous connection is closed")
        old.close()
      }
      let connected = Client(socket: PacketSocket(fd: FileDescriptor(rawValue: fd)))
      client = connected
      do {
        connected.source = try loop.watch(fd: fd, events: EpollEvents.readable) { [unowned self] events in
          self.serve(connected, events: events)
        }
      } catch {
        log.error("cannot watch the connection of pid \(pid): \(error)")
        connected.close()
        client = nil
        continue
      }
      log.info("jetsamd (pid \(pid)) connected; \(children.count) children running")
      let exits = unsentExits.compactMap { reply in
        reply.pid.map { SpawnerReply.Exit(pid: $0, waitStatus: reply.waitStatus ?? -1, app: reply.app) }
      }
      unsentExits = []
      send(.hello(children: children.keys.sorted(), exits: exits))
    }
  }

  private func serve(_ connection: Client, events: UInt32) {
    guard connection === client else { return }
    if events & EpollEvents.writable != 0 { flush(connection) }
    guard connection === client else { return }
    // A bounded number per turn: exits of children are served between them.
    for _ in 0..<32 {
      let received: PacketSocket.Received
      do {
        received = try connection.socket.receive()
      } catch {
        log.warning("a message from jetsamd could not be read: \(error)")
        continue
      }
      switch received {
      case .empty: return
      case .closed:
        log.info("jetsamd disconnected; \(children.count) children running")
        drop(connection)
        return
      case .message(let bytes, let descriptors):
        handle(bytes, descriptors)
        guard connection === client else { return }
      }
    }
  }

  private func drop(_ connection: Client) {
    // Exits that never went out are kept for the next jetsamd.
    for message in connection.outbox {
      message.descriptor?.close()
      if let reply = try? JSONDecoder().decode(SpawnerReply.self, from: Data(message.bytes)), reply.kind == .exited {
        unsentExits.append(reply)
      }
    }
    connection.outbox = []
    connection.close()
    if client === connection { client = nil }
  }

  // MARK: Requests

  private func handle(_ bytes: [UInt8], _ descriptors: [FileDescriptor]) {
    // The received descriptors are copies for this spawn: the child has its own once it runs.
    defer { for descriptor in descriptors { descriptor.close() } }
    guard let request = try? JSONDecoder().decode(SpawnerRequest.self, from: Data(bytes)) else {
      log.warning("an unreadable request from jetsamd (\(bytes.count) bytes) was dropped")
      return
    }
    let spawned: SpawnedProcess
    do {
      spawned = try spawnProcess(try request.spawnRequest(with: descriptors))
    } catch {
      log.info("request \(request.id) failed: \(error)")
      return send(.failed(id: request.id, error))
    }
    let child = Child(pidfd: spawned.pidfd, app: request.app)
    children[spawned.pid] = child
    do {
      child.source = try loop.watch(fd: spawned.pidfd.rawValue, events: EpollEvents.readable) { [unowned self] _ in
        self.reap(spawned.pid)
      }
    } catch {
      log.error("cannot watch pid \(spawned.pid) for its exit: \(error)")
    }
    send(.spawned(id: request.id, pid: spawned.pid), descriptor: spawned.pidfd)
  }

  private func reap(_ pid: Int32) {
    guard let child = children[pid] else { return }
    let end: ProcessEnd?
    do {
      end = try reapExit(pidfd: child.pidfd)
    } catch {
      log.error("waitid for pid \(pid): \(error)")
      end = .unobserved
    }
    guard let end else { return }
    child.source?.cancel()
    child.pidfd.close()
    children[pid] = nil
    // An end nobody saw (waitid failed) is still an end: jetsamd falls back to what the kernel can tell.
    send(.exited(pid: pid, waitStatus: end.waitStatus ?? -1, app: child.app))
  }

  // MARK: Sending

  /// Sends a reply to the connected jetsamd, or keeps it: exits for the next jetsamd, the rest dropped (a spawn
  /// whose jetsamd went away; the new one re-adopts what it finds running).
  private func send(_ reply: SpawnerReply, descriptor: FileDescriptor? = nil) {
    guard let connection = client else {
      if reply.kind == .exited { keep(reply) }
      return
    }
    guard let bytes = try? JSONEncoder.stable.encode(reply) else { return }
    if connection.outbox.isEmpty {
      do {
        if try connection.socket.send(Array(bytes), descriptors: descriptor.map { [$0] } ?? []) { return }
      } catch {
        log.info("jetsamd went away while a reply was sent: \(error)")
        drop(connection)
        if reply.kind == .exited { keep(reply) }
        return
      }
    }
    // Full: queued with a copy of its descriptor (the child's own pidfd stays with the service).
    let copy = descriptor.flatMap { fd -> FileDescriptor? in
      let duplicate = fcntl(fd.rawValue, F_DUPFD_CLOEXEC, 3)
      return duplicate >= 0 ? FileDescriptor(rawValue: duplicate) : nil
    }
    connection.outbox.append((Array(bytes), copy))
    connection.source?.setIOEvents(EpollEvents.readable | EpollEvents.writable)
  }

  private func flush(_ connection: Client) {
    while let message = connection.outbox.first {
      do {
        guard try connection.socket.send(message.bytes, descriptors: message.descriptor.map { [$0] } ?? []) else {
          return
        }
      } catch {
        log.info("jetsamd went away while replies were queued: \(error)")
        return drop(connection)
      }
      message.descriptor?.close()
      connection.outbox.removeFirst()
    }
    connection.source?.setIOEvents(EpollEvents.readable)
  }

  private func keep(_ exit: SpawnerReply) {
    if unsentExits.count >= Self.maxUnsentExits {
      log.warning("more than \(Self.maxUnsentExits) exits while jetsamd is away: the oldest is dropped")
      unsentExits.removeFirst()
    }
    unsentExits.append(exit)
  }
}
