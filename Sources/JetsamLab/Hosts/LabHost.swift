import Foundation

/// A host a lab reaches over SSH (`--host NAME=ssh://[user@]host[:port][/socket]`, or the scenario's `hosts`): its
/// jetsamd already runs there, and the lab talks to its control socket through OpenSSH's own Unix-socket forwarding,
/// so that nothing of jetsam but jetsamd runs on the far side.
public struct LabHost: Sendable, Equatable, Codable {
  /// Where jetsamd's control socket is on a host set up as README's fleet (the systemd units' runtime directory),
  /// when the spec names none.
  public static let defaultSocket = "/run/jetsam/jetsamd.sock"

  /// The name steps and expectations use (`host: "a"`), and the report's track.
  public var name: String
  public var user: String?
  public var address: String
  public var port: Int?
  /// jetsamd's control socket on that host.
  public var socket: String

  /// The spec as ssh takes its destination: `ssh://[user@]host[:port]`.
  public var destination: String {
    "ssh://" + (user.map { $0 + "@" } ?? "") + (address.contains(":") ? "[\(address)]" : address)
      + (port.map { ":\($0)" } ?? "")
  }

  /// The spec as written back: `ssh://root@127.0.0.1:2222/run/jetsam/jetsamd.sock`.
  public var spec: String { destination + socket }

  /// Reads `NAME=ssh://[user@]host[:port][/path/to/jetsamd.sock]` (the `--host` option's value).
  public init(option: String) throws(LabHostError) {
    guard let equals = option.firstIndex(of: "=") else {
      throw LabHostError("\"\(option)\" is not NAME=ssh://[user@]host[:port][/socket]")
    }
    try self.init(name: String(option[..<equals]), url: String(option[option.index(after: equals)...]))
  }

  /// Reads `ssh://[user@]host[:port][/path/to/jetsamd.sock]` for the host called `name`.
  public init(name: String, url: String) throws(LabHostError) {
    guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
      throw LabHostError("\"\(name)\" is not a host name (letters, digits, - and _)")
    }
    guard url.hasPrefix("ssh://") else { throw LabHostError("\(name): \"\(url)\" does not begin with ssh://") }
    var rest = Substring(url.dropFirst("ssh://".count))
    var socket = Self.defaultSocket
    if let slash = rest.firstIndex(of: "/") {
      socket = String(rest[slash...])
      rest = rest[..<slash]
    }
    var user: String?
    if let at = rest.lastIndex(of: "@") {
      user = String(rest[..<at])
      rest = rest[rest.index(after: at)...]
      guard !user!.isEmpty else { throw LabHostError("\(name): \"\(url)\" has an empty user before @") }
    }
    var address = String(rest)
    var port: Int?
    // [::1]:22, or host:22; a bare IPv6 address without brackets cannot carry a port.
    if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
      address = String(rest[rest.index(after: rest.startIndex)..<close])
      let after = rest[rest.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw LabHostError("\(name): \"\(url)\": expected :PORT after ]") }
        port = Int(after.dropFirst())
        guard port != nil else { throw LabHostError("\(name): \"\(url)\": \"\(after.dropFirst())\" is not a port") }
      }
    } else if let colon = rest.lastIndex(of: ":") {
      address = String(rest[..<colon])
      let text = rest[rest.index(after: colon)...]
      port = Int(text)
      guard port != nil else { throw LabHostError("\(name): \"\(url)\": \"\(text)\" is not a port") }
    }
    if let port, !(1...65535).contains(port) {
      throw LabHostError("\(name): \"\(url)\": port \(port) is not within 1–65535")
    }
    guard !address.isEmpty else { throw LabHostError("\(name): \"\(url)\" names no host") }
    guard socket.count > 1 else { throw LabHostError("\(name): \"\(url)\": the socket path after the host is empty") }
    self.name = name
    self.user = user
    self.address = address
    self.port = port
    self.socket = socket
  }
}

/// A host spec that cannot be read, saying what is wrong with it.
public struct LabHostError: Error, CustomStringConvertible, Sendable {
  public var description: String
  init(_ description: String) { self.description = description }
}
