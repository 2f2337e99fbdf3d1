import Glibc

/// The `Key:\tvalue` lines of `/proc/PID/status` (see proc_pid_status(5)).
public struct ProcessStatus: Sendable, Hashable {
  /// Every field by key, each value without the blanks after the colon, e.g. `["Uid": "0\t0\t0\t0", ...]`.
  public var fields: [String: String]

  /// Parses the file's text.
  public init(parsing text: some StringProtocol) {
    var fields: [String: String] = [:]
    for line in text.split(separator: "\n") {
      guard let colon = line.firstIndex(of: ":") else { continue }
      fields[String(line[..<colon])] = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
    }
    self.fields = fields
  }

  /// Reads `/proc/PID/status`.
  ///
  /// - Throws: ``SystemError`` (`ENOENT` or `ESRCH` when the process is gone).
  public static func read(pid: Int32) throws(SystemError) -> ProcessStatus {
    ProcessStatus(parsing: try readTextFile("/proc/\(pid)/status"))
  }

  /// One field's value, e.g. `status["Uid"]` → `"0\t0\t0\t0"`.
  public subscript(key: String) -> String? { fields[key] }

  /// The resident set size (`VmRSS`, given in kB) in bytes; `nil` for a zombie or a kernel thread.
  public var residentBytes: Int64? {
    fields["VmRSS"].flatMap { Int64($0.prefix { $0 != " " }) }.map { $0 * 1024 }
  }

  /// The effective capability set (`CapEff`), one bit per `CAP_*` number.
  public var effectiveCapabilities: UInt64? {
    fields["CapEff"].flatMap { UInt64($0, radix: 16) }
  }
}

/// Whether this process has a capability in its effective set (`CapEff` of `/proc/self/status`).
///
/// - Parameter capability: the `CAP_*` number from `<linux/capability.h>` (not in the Glibc module), e.g. 24 for
///   `CAP_SYS_RESOURCE`.
public func hasCapability(_ capability: Int32) -> Bool {
  guard let mask = (try? ProcessStatus.read(pid: Glibc.getpid()))?.effectiveCapabilities else { return false }
  return mask & (1 << UInt64(capability)) != 0
}

/// `CAP_SYS_ADMIN` from `<linux/capability.h>`: making namespaces, among much else.
public let capabilitySystemAdministration: Int32 = 21
