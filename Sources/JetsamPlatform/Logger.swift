import Glibc

/// The daemon's log: priority-tagged lines on stderr (`<3>message`, the prefix journald and systemd parse).
///
/// Exit records go to their own durable log; this is for what the daemon does and why.
public struct Logger: Sendable {
  /// syslog priorities, as journald knows them.
  public enum Priority: Int32, Sendable, Comparable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7
    public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
  }

  /// The most verbose priority printed.
  public var threshold: Priority
  /// Whether to prefix lines with `<N>` (for journald) or with a readable tag (for a terminal).
  public var journalPrefix: Bool

  /// The program named at the start of each terminal line.
  public var program: String

  public init(threshold: Priority = .info, journalPrefix: Bool = false, program: String = "jetsamd") {
    self.threshold = threshold
    self.journalPrefix = journalPrefix
    self.program = program
  }

  public func log(_ priority: Priority, _ message: @autoclosure () -> String) {
    guard priority <= threshold else { return }
    let prefix: String
    if journalPrefix {
      prefix = "<\(priority.rawValue)>"
    } else {
      switch priority {
      case .error: prefix = "\(program): error: "
      case .warning: prefix = "\(program): warning: "
      default: prefix = "\(program): "
      }
    }
    let line = prefix + message() + "\n"
    var bytes = Array(line.utf8)
    _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
  }

  public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
  public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
  public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
  public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
  public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
