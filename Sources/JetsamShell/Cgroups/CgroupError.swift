import CCgroup
import Glibc

/// A cgroup operation that failed for a reason other than a plain system call (those throw ``SystemError``).
///
/// The `operation` names what was attempted and the path or cgroup it was attempted on, e.g.
/// `create cgroup memory:/process_api/x/jetsam-device`.
public struct CgroupError: Error, CustomStringConvertible, Sendable, Equatable {
  /// Why the operation failed.
  public enum Reason: Sendable, Equatable {
    /// libcgroup returned an `ECG…` code; `errno` is its `cgroup_get_last_errno()` (meaningful for `ECGOTHER`).
    case libcgroup(code: Int, errno: Int32)
    /// The host's cgroup layout lacks what the operation needs (e.g. a v1 eventfd threshold on cgroup v2).
    case unsupported(String)
    /// A controller or hierarchy is not mounted, or the process has no entry for it in /proc/PID/cgroup.
    case notMounted(String)
    /// A cgroup file held something the parser did not expect.
    case unexpectedContent(String)
    /// The cgroup still had processes after retrying for a while.
    case stillPopulated
    /// The cgroup still has child cgroups (named), so it cannot be removed.
    case hasChildCgroups([String])
    /// A cgroup with this name exists already (use the adopting call instead).
    case alreadyExists
    /// A name or limit the kernel would reject, caught before touching the cgroupfs.
    case invalidArgument(String)
  }

  public var reason: Reason
  /// What was being done, with the path or `controller:cgroup` it was done on.
  public var operation: String

  public init(_ reason: Reason, _ operation: String) {
    self.reason = reason
    self.operation = operation
  }

  public var description: String {
    switch reason {
    case .libcgroup(let code, let errnoValue):
      var text = "\(operation): libcgroup \(Self.libcgroupCodeName(code)) (\(code))"
      if errnoValue != 0 { text += ": \(String(cString: strerror(errnoValue)))" }
      return text
    case .unsupported(let why): return "\(operation): unsupported: \(why)"
    case .notMounted(let what): return "\(operation): not mounted: \(what)"
    case .unexpectedContent(let what): return "\(operation): unexpected content: \(what)"
    case .stillPopulated: return "\(operation): the cgroup still has processes"
    case .hasChildCgroups(let names): return "\(operation): child cgroups remain: \(names.joined(separator: ", "))"
    case .alreadyExists: return "\(operation): the cgroup exists already"
    case .invalidArgument(let what): return "\(operation): invalid argument: \(what)"
    }
  }

  /// The C name of a libcgroup error code (`ECGOTHER` for 50016).
  ///
  /// Mapped here rather than through `cgroup_strerror`, which is off by one for codes ≥ 50022 in libcgroup 2.0.2
  /// (there is no 50022, and its message table does not skip it) and reads past its table for larger codes.
  public static func libcgroupCodeName(_ code: Int) -> String {
    switch code {
    case ECGROUPNOTCOMPILED: "ECGROUPNOTCOMPILED"
    case ECGROUPNOTMOUNTED: "ECGROUPNOTMOUNTED"
    case ECGROUPNOTEXIST: "ECGROUPNOTEXIST"
    case ECGROUPNOTCREATED: "ECGROUPNOTCREATED"
    case ECGROUPSUBSYSNOTMOUNTED: "ECGROUPSUBSYSNOTMOUNTED"
    case ECGROUPNOTOWNER: "ECGROUPNOTOWNER"
    case ECGROUPMULTIMOUNTED: "ECGROUPMULTIMOUNTED"
    case ECGROUPNOTALLOWED: "ECGROUPNOTALLOWED"
    case ECGMAXVALUESEXCEEDED: "ECGMAXVALUESEXCEEDED"
    case ECGCONTROLLEREXISTS: "ECGCONTROLLEREXISTS"
    case ECGVALUEEXISTS: "ECGVALUEEXISTS"
    case ECGINVAL: "ECGINVAL"
    case ECGCONTROLLERCREATEFAILED: "ECGCONTROLLERCREATEFAILED"
    case ECGFAIL: "ECGFAIL"
    case ECGROUPNOTINITIALIZED: "ECGROUPNOTINITIALIZED"
    case ECGROUPVALUENOTEXIST: "ECGROUPVALUENOTEXIST"
    case ECGOTHER: "ECGOTHER"
    case ECGROUPNOTEQUAL: "ECGROUPNOTEQUAL"
    case ECGCONTROLLERNOTEQUAL: "ECGCONTROLLERNOTEQUAL"
    case ECGROUPPARSEFAIL: "ECGROUPPARSEFAIL"
    case ECGROUPNORULES: "ECGROUPNORULES"
    case ECGMOUNTFAIL: "ECGMOUNTFAIL"
    case ECGEOF: "ECGEOF"
    case ECGCONFIGPARSEFAIL: "ECGCONFIGPARSEFAIL"
    case ECGNAMESPACEPATHS: "ECGNAMESPACEPATHS"
    case ECGNAMESPACECONTROLLER: "ECGNAMESPACECONTROLLER"
    case ECGMOUNTNAMESPACE: "ECGMOUNTNAMESPACE"
    case ECGROUPUNSUPP: "ECGROUPUNSUPP"
    case ECGCANTSETVALUE: "ECGCANTSETVALUE"
    case ECGNONEMPTY: "ECGNONEMPTY"
    default: "unknown libcgroup error"
    }
  }
}
