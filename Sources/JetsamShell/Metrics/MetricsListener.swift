import CSystemd
import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform

/// The HTTP endpoint for Prometheus, off by default: `GET /metrics` answered on the loop (``MetricsEndpoint``),
/// one request per connection (``HTTPConnection``), on one of two sockets:
/// - the one systemd passes, named ``descriptorName`` (jetsamd-metrics.socket): jetsamd's own sandbox keeps
///   PrivateNetwork= and AF_UNIX only, as it accepts on a socket made outside it; kept whatever the config says;
/// - else the config's `metrics.listen`, bound by jetsamd, rebound when a reload changes it. An address it cannot
///   take (in use, or refused by a sandbox) is logged and tried again every ``retryInterval``: metrics are never a
///   reason for jetsamd not to run.
///
/// At most ``maxConnections`` are served at once, so that clients holding connections open cost a bounded number of
/// descriptors and never reach the control socket's or the apps'. When all are taken, the oldest connection that has
/// not sent its whole request head yet is closed to admit the new one: slow clients cannot hold the endpoint from a
/// scraper, whose head comes at once. Only when every one is being answered is the new one answered 503.
final class MetricsListener {
  /// The name of the descriptor systemd passes (FileDescriptorName= of jetsamd-metrics.socket).
  static let descriptorName = "metrics"
  static let maxConnections = 16
  static let retryInterval: Duration = .seconds(10)

  private let loop: EventLoop
  private let log: Logger
  private let exposition: () -> String
  private let budget: OutputBudget
  /// systemd's socket, when it passed one.
  private let inherited: FileDescriptor?
  private var socket: FileDescriptor?
  private var acceptor: ConnectionAcceptor?
  /// The address bound from the config, while bound.
  private var bound: ListenAddress?
  /// The address the config asks for.
  private var wanted: ListenAddress?
  private var retry: EventSource!
  /// The last failure logged, so that an address that stays unavailable is logged once, not at every retry.
  private var lastFailure: String?
  private var connections: [Int32: HTTPConnection] = [:]
  /// Connections accepted so far: each one's serial, which orders them.
  private var accepted = 0

  init(
    loop: EventLoop, log: Logger, budget: OutputBudget, inherited: FileDescriptor?,
    exposition: @escaping () -> String
  ) throws(SystemError) {
    self.loop = loop
    self.log = log
    self.budget = budget
    self.inherited = inherited
    self.exposition = exposition
    retry = try loop.timer(at: nil) { [unowned self] in self.bind() }
    if let inherited {
      _ = fcntl(inherited.rawValue, F_SETFL, fcntl(inherited.rawValue, F_GETFL) | O_NONBLOCK)
      try listen(on: inherited)
      log.notice("metrics: serving GET /metrics on the socket systemd passed (\(Self.descriptorName))")
    }
  }

  /// Whether `fd` is a listening TCP socket (what jetsamd-metrics.socket passes).
  static func isListeningSocket(_ fd: Int32) -> Bool {
    sd_is_socket_inet(fd, AF_UNSPEC, Int32(SOCK_STREAM.rawValue), 1, 0) > 0
  }

  /// Applies the config's `metrics.listen` (at start and at every reload).
  func configure(_ address: ListenAddress?) {
    if inherited != nil {
      if address != nil && address != wanted {
        log.notice("metrics: serving on systemd's socket; metrics.listen (\(address!)) is not bound as well")
      }
      wanted = address
      return
    }
    guard address != wanted else { return }
    wanted = address
    unbind()
    lastFailure = nil
    bind()
  }

  /// Stops accepting (a restart): connections not yet accepted wait in systemd's socket for the next jetsamd,
  /// those accepted are answered while the loop runs on.
  func stopAccepting() {
    retry.schedule(at: nil)
    acceptor?.cancel()
    acceptor = nil
  }

  /// Closes the socket and every connection (shutdown).
  func close() {
    retry.schedule(at: nil)
    unbind()
    inherited?.close()
  }

  private func bind() {
    guard let address = wanted, bound == nil else { return }
    do throws(SystemError) {
      let fd = try Self.makeSocket(address)
      do {
        try listen(on: fd)
      } catch {
        fd.close()
        throw error
      }
      socket = fd
      bound = address
      lastFailure = nil
      log.notice(
        "metrics: serving GET /metrics on \(address)"
          + (address.isLoopback ? "" : " (not a loopback address: reachable from the network)"))
    } catch {
      let failure = "\(error)"
      let hint =
        error.code == EAFNOSUPPORT || error.code == EPERM
        ? " (a sandbox without network, such as jetsamd.service's: use jetsamd-metrics.socket instead)" : ""
      if failure != lastFailure {
        log.error("metrics: cannot listen on \(address): \(failure)\(hint); trying again every \(Self.retryInterval)")
      }
      lastFailure = failure
      retry.schedule(at: MonotonicClock.now().advanced(by: Self.retryInterval))
    }
  }

  private func unbind() {
    stopAccepting()
    for connection in Array(connections.values) { connection.close() }
    connections = [:]
    if bound != nil {
      socket?.close()
      log.notice("metrics: no longer listening on \(bound!)")
    }
    socket = nil
    bound = nil
  }

  private func listen(on fd: FileDescriptor) throws(SystemError) {
    acceptor = try ConnectionAcceptor(loop: loop, listener: fd, name: "metrics", log: log) { [unowned self] in
      self.accepted($0)
    }
  }

  /// A new TCP socket bound to `address` and listening.
  private static func makeSocket(_ address: ListenAddress) throws(SystemError) -> FileDescriptor {
    let domain = address.family == .inet ? AF_INET : AF_INET6
    let raw = try systemCall("socket") {
      Glibc.socket(
        domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
    let fd = FileDescriptor(rawValue: raw)
    do {
      var on: Int32 = 1
      // A restarted jetsamd takes its port back at once, past the old connections' TIME_WAIT.
      _ = setsockopt(raw, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
      if address.family == .inet6 {
        // [::] means IPv6 only, as written; an IPv4 address is configured as one.
        _ = setsockopt(raw, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
      }
      try systemCall("bind") { bindAddress(raw, address) }
      try systemCall("listen") { Glibc.listen(raw, Int32(ConnectionAcceptor.perTurn)) }
      return fd
    } catch {
      fd.close()
      throw error
    }
  }

  private static func bindAddress(_ fd: Int32, _ address: ListenAddress) -> Int32 {
    switch address.family {
    case .inet:
      var sin = sockaddr_in()
      sin.sin_family = sa_family_t(AF_INET)
      sin.sin_port = address.port.bigEndian
      withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: address.addressBytes) }
      return bind(fd, &sin)
    case .inet6:
      var sin6 = sockaddr_in6()
      sin6.sin6_family = sa_family_t(AF_INET6)
      sin6.sin6_port = address.port.bigEndian
      withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: address.addressBytes) }
      return bind(fd, &sin6)
    }
  }

  /// bind(2) with a `sockaddr_in` or `sockaddr_in6`.
  private static func bind<Address>(_ fd: Int32, _ address: inout Address) -> Int32 {
    withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.bind(fd, $0, socklen_t(MemoryLayout<Address>.size))
      }
    }
  }

  /// A new connection: served (in the place of the oldest one still sending its head, when all are taken), or
  /// answered 503 when every one is being answered.
  private func accepted(_ fd: FileDescriptor) {
    let connection: HTTPConnection
    do {
      accepted += 1
      connection = try HTTPConnection(fd: fd, serial: accepted, loop: loop, budget: budget) { [unowned self] head in
        MetricsEndpoint.response(to: head, exposition: self.exposition)
      }
    } catch {
      log.warning("metrics: watching a connection: \(error)")
      fd.close()
      return
    }
    if connections.count >= Self.maxConnections,
      let slowest = connections.values.filter(\.awaitingHead).min(by: { $0.serial < $1.serial })
    {
      // Closed unanswered: a client that has not asked yet is owed nothing, and its slot goes to the new one.
      slowest.close()
    }
    if connections.count >= Self.maxConnections {
      // Answered and closed at once (its answer fits any socket buffer), never counted among those served.
      connection.answer(.refusal(.serviceUnavailable, "\(Self.maxConnections) metrics connections are open"))
      connection.close()
      return
    }
    connection.onClose = { [unowned self] in self.connections[fd.rawValue] = nil }
    connections[fd.rawValue] = connection
  }
}
