import CJetsamShim
import FoundationEssentials
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning
import JetsamValues

/// Starts apps through the spawner service (`jetsam-spawner`, ``SpawnerService``) and learns their ends from it,
/// so that jetsamd can run without the privileges and the reach its apps need (the network, namespaces, other
/// users' ids): the service is the apps' parent, jetsamd keeps a pidfd of each.
///
/// Nothing waits on the service on the loop: a launch is answered when the service's reply arrives, and an app's
/// end (its pidfd turns readable) is reported once the service has said how it ended. If the service goes away,
/// launches fail with ``SpawnError/Stage/spawnerService`` until it is back (reconnected every second), and the
/// ends it can no longer tell are taken from the kernel where it can tell them, else recorded as unobserved.
public final class RemoteProcessLauncher: ProcessLauncher {
  public var exitKnown: ((pid_t) -> Void)?
  public var childContinued: ((pid_t) -> Void)?

  private let loop: EventLoop
  private let path: String
  private let log: Logger
  private var socket: PacketSocket?
  private var source: EventSource?
  private var reconnectTimer: EventSource?
  private var nextID = 1
  /// Launches sent and not answered yet, by request id.
  private var pending: [Int: (Result<SpawnedProcess, SpawnError>) -> Void] = [:]
  /// Requests the socket had no room for yet, with copies of their descriptors (closed once sent).
  private var outbox: [(id: Int, bytes: [UInt8], descriptors: [FileDescriptor])] = []
  /// Children of the service whose end it will tell.
  private var reporting: Set<pid_t> = []
  /// Ends told and not asked for yet.
  private var ends: [pid_t: ProcessEnd] = [:]
  /// Of the ends told in `hello` (while jetsamd was away), the last pid of each app named.
  private var lastEndedPid: [String: pid_t] = [:]
  /// Whether the service's `hello` on this connection came.
  private var helloReceived = false
  /// Children whose end nobody will ask for (hooks).
  private var discarded: Set<pid_t> = []

  /// Connects to the service at `path`, waiting at most `helloTimeout` for its first message (once, at start-up,
  /// before the loop runs: re-adopted apps must know which of them the service will report on, and how those that
  /// ended meanwhile ended). The service answers at once; a machine in trouble, when a restart happens, can make it
  /// slow, hence a bound of seconds. A service that is not there yet is retried every second from the loop.
  public init(loop: EventLoop, path: String, log: Logger, helloTimeout: Duration = .seconds(5)) {
    self.loop = loop
    self.path = path
    self.log = log
    reconnectTimer = try? loop.timer(at: nil) { [unowned self] in self.connect() }
    connect()
    awaitHello(within: helloTimeout)
  }

  /// Whether the service may give apps cgroup namespaces of their own, as its last `hello` said (nil before one).
  public private(set) var serviceCreatesCgroupNamespaces: Bool?

  /// Whether the service is connected now.
  public var isConnected: Bool { socket != nil }

  // MARK: ProcessLauncher

  public func spawn(_ request: SpawnRequest, completion: @escaping (Result<SpawnedProcess, SpawnError>) -> Void) {
    if socket == nil { connect() }
    guard let socket else {
      return completion(.failure(SpawnError(stage: .spawnerService, errno: ECONNREFUSED, detail: path)))
    }
    let id = nextID
    nextID += 1
    guard let bytes = try? JSONEncoder.stable.encode(SpawnerRequest(id: id, request)),
      bytes.count <= PacketSocket.maxMessageBytes
    else {
      return completion(
        .failure(
          SpawnError(
            stage: .invalidRequest, errno: E2BIG,
            detail: "the command line and environment exceed \(PacketSocket.maxMessageBytes) bytes")))
    }
    let descriptors = SpawnerRequest.attached(request).map(\.fd)
    pending[id] = completion
    if outbox.isEmpty {
      do {
        if try socket.send(Array(bytes), descriptors: descriptors) { return }
      } catch {
        return disconnect("sending a launch: \(error)")
      }
    }
    // The socket is full: the request waits with copies of its descriptors (the caller closes its own).
    let copies = descriptors.compactMap { fd -> FileDescriptor? in
      let copy = fcntl(fd.rawValue, F_DUPFD_CLOEXEC, 3)
      return copy >= 0 ? FileDescriptor(rawValue: copy) : nil
    }
    guard copies.count == descriptors.count else {
      for copy in copies { copy.close() }
      pending[id] = nil
      return completion(.failure(SpawnError(stage: .spawnerService, errno: EMFILE, detail: path)))
    }
    outbox.append((id, Array(bytes), copies))
    source?.setIOEvents(EpollEvents.readable | EpollEvents.writable)
  }

  public func openPidfd(pid: pid_t) throws -> FileDescriptor { try JetsamPlatform.openPidfd(pid: pid) }

  public func reap(pid: pid_t, pidfd: FileDescriptor) throws -> ProcessEnd? { end(of: pid, pidfd: pidfd, startTime: 0) }

  public func exitStatus(ofAdopted pid: pid_t, pidfd: FileDescriptor, startTime: UInt64) -> ProcessEnd? {
    end(of: pid, pidfd: pidfd, startTime: startTime)
  }

  public func reportsExit(of pid: pid_t) -> Bool { reporting.contains(pid) }

  public func discardExit(of pid: pid_t) {
    if ends.removeValue(forKey: pid) == nil && reporting.contains(pid) { discarded.insert(pid) }
  }

  public func startTime(of pid: pid_t) -> UInt64 { ProcessStat.startTime(pid: pid) ?? 0 }

  public func takeReportedEnd(of pid: pid_t) -> ProcessEnd? { ends.removeValue(forKey: pid) }

  public func takeReportedEnd(ofApp name: String) -> (pid: pid_t, end: ProcessEnd)? {
    guard let pid = lastEndedPid.removeValue(forKey: name), let end = ends.removeValue(forKey: pid) else { return nil }
    return (pid, end)
  }

  /// The most ends kept for pids nobody asked about yet (apps a restarted jetsamd does not know any more).
  static let maxKeptEnds = 8192

  private func keep(_ end: ProcessEnd, of pid: pid_t) {
    if ends.count >= Self.maxKeptEnds, let any = ends.keys.first { ends[any] = nil }
    ends[pid] = end
  }

  /// How `pid` ended: as the service told, nil while it will tell, else what the kernel can tell of a process
  /// whose pidfd says it has ended (unobserved when it cannot).
  private func end(of pid: pid_t, pidfd: FileDescriptor, startTime: UInt64) -> ProcessEnd? {
    if let end = ends.removeValue(forKey: pid) { return end }
    if reporting.contains(pid) { return nil }
    guard Self.hasEnded(pidfd) else { return nil }
    return KernelProcessLauncher.kernelExitStatus(ofAdopted: pid, pidfd: pidfd, startTime: startTime) ?? .unobserved
  }

  /// Whether a pidfd says its process has ended (readable).
  private static func hasEnded(_ pidfd: FileDescriptor) -> Bool {
    var entry = pollfd(fd: pidfd.rawValue, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) == 1
  }

  // MARK: The connection

  private func connect() {
    guard socket == nil else { return }
    do {
      let fd = try UnixSocket.make(UnixSocket.seqpacket)
      guard try UnixSocket.connect(fd, to: path) == 0 else {
        let code = errno
        fd.close()
        throw SystemError(code: code, "connect to the spawner service at \(path)")
      }
      socket = PacketSocket(fd: fd)
      helloReceived = false
      source = try loop.watch(fd: fd.rawValue, events: EpollEvents.readable) { [unowned self] events in
        self.serve(events)
      }
      log.info("connected to the spawner service at \(path)")
    } catch {
      socket?.fd.close()
      socket = nil
      log.warning("the spawner service is not reachable (\(error)); retrying every second")
      reconnectTimer?.schedule(at: loop.now().advanced(by: .seconds(1)))
    }
  }

  /// Waits, before the loop runs, for the service's `hello` (which children it will report on, and how the apps
  /// that ended meanwhile ended), through interruptions by signals; says so when it does not come in time.
  private func awaitHello(within timeout: Duration) {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while !helloReceived, let socket {
      let (seconds, attoseconds) = (deadline - ContinuousClock.now).components
      let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
      guard milliseconds > 0 else {
        return log.warning(
          "the spawner service said nothing within \(timeout): apps that ended while jetsamd was away are recorded"
            + " with what the kernel can tell")
      }
      var entry = pollfd(fd: socket.fd.rawValue, events: Int16(POLLIN), revents: 0)
      let ready = poll(&entry, 1, Int32(milliseconds))
      if ready > 0 {
        serve(EpollEvents.readable)
      } else if ready < 0 && errno != EINTR {
        return log.warning("waiting for the spawner service's hello: \(SystemError.current("poll"))")
      }
    }
  }

  private func serve(_ events: UInt32) {
    if events & EpollEvents.writable != 0 { flush() }
    // A bounded number per turn, as for every peer.
    for _ in 0..<64 {
      guard let socket else { return }
      let received: PacketSocket.Received
      do {
        received = try socket.receive()
      } catch {
        return disconnect("reading: \(error)")
      }
      switch received {
      case .empty: return
      case .closed: return disconnect("it hung up")
      case .message(let bytes, let descriptors): handle(bytes, descriptors)
      }
    }
  }

  private func handle(_ bytes: [UInt8], _ descriptors: [FileDescriptor]) {
    guard let reply = try? JSONDecoder().decode(SpawnerReply.self, from: Data(bytes)) else {
      for descriptor in descriptors { descriptor.close() }
      return log.warning("an unreadable message from the spawner service was dropped")
    }
    switch reply.kind {
    case .hello:
      for descriptor in descriptors { descriptor.close() }
      helloReceived = true
      serviceCreatesCgroupNamespaces = reply.cgroupNamespaces
      // Ends of apps that ended while jetsamd was away: re-adoption takes them (``takeReportedEnd(of:)``).
      for exit in reply.exits ?? [] {
        keep(ProcessEnd(reported: exit.waitStatus), of: exit.pid)
        // Oldest first: the last one of an app is its latest launch.
        if let app = exit.app { lastEndedPid[app] = exit.pid }
      }
      let children = Set(reply.children ?? [])
      // Children of a service that restarted are no longer its own: their ends come from the kernel now.
      let lost = reporting.subtracting(children)
      reporting = children
      for pid in lost { exitKnown?(pid) }
    case .spawned:
      guard let id = reply.id, let completion = pending.removeValue(forKey: id) else {
        for descriptor in descriptors { descriptor.close() }
        return
      }
      guard let pid = reply.pid, let pidfd = descriptors.first else {
        for descriptor in descriptors { descriptor.close() }
        return completion(.failure(SpawnError(stage: .spawnerService, errno: EPROTO, detail: "no pidfd in its answer")))
      }
      for extra in descriptors.dropFirst() { extra.close() }
      reporting.insert(pid)
      completion(.success(SpawnedProcess(pid: pid, pidfd: pidfd)))
    case .failed:
      for descriptor in descriptors { descriptor.close() }
      guard let id = reply.id, let completion = pending.removeValue(forKey: id) else { return }
      completion(.failure(reply.spawnError))
    case .continued:
      for descriptor in descriptors { descriptor.close() }
      if let pid = reply.pid { childContinued?(pid) }
    case .exited:
      for descriptor in descriptors { descriptor.close() }
      guard let pid = reply.pid else { return }
      reporting.remove(pid)
      if discarded.remove(pid) != nil { return }
      keep(ProcessEnd(reported: reply.waitStatus ?? -1), of: pid)
      exitKnown?(pid)
    }
  }

  private func flush() {
    while let request = outbox.first, let socket {
      do {
        guard try socket.send(request.bytes, descriptors: request.descriptors) else { return }
      } catch {
        return disconnect("sending a launch: \(error)")
      }
      for descriptor in request.descriptors { descriptor.close() }
      outbox.removeFirst()
    }
    source?.setIOEvents(EpollEvents.readable)
  }

  /// The service is gone: fail what waits for it, take the ends it will not tell from the kernel, and try again
  /// in a second.
  private func disconnect(_ why: String) {
    log.warning("lost the spawner service at \(path): \(why); reconnecting every second")
    source?.cancel()
    source = nil
    socket?.fd.close()
    socket = nil
    for request in outbox { for descriptor in request.descriptors { descriptor.close() } }
    outbox = []
    let waiting = pending
    pending = [:]
    for (_, completion) in waiting.sorted(by: { $0.key < $1.key }) {
      completion(.failure(SpawnError(stage: .spawnerService, errno: ECONNRESET, detail: path)))
    }
    let lost = reporting
    reporting = []
    discarded = []
    for pid in lost.sorted() { exitKnown?(pid) }
    reconnectTimer?.schedule(at: loop.now().advanced(by: .seconds(1)))
  }
}

extension ProcessEnd {
  /// A status the spawner service told: waitpid's format, or -1 when it could not tell either.
  init(reported status: Int32) {
    self = status < 0 ? .unobserved : ProcessEnd(waitStatus: status)
  }
}
