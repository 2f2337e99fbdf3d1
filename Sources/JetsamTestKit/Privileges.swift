import Glibc
import JetsamPlatform

/// Whether this process runs as root (creating cgroups, changing users and starting jetsamd need it).
public let isRoot = getuid() == 0

/// Whether this process has a capability in its effective set (`CapEff` of `/proc/self/status`).
///
/// - Parameter capability: the `CAP_*` number from `<linux/capability.h>` (not in the Glibc module), e.g. 24 for
///   `CAP_SYS_RESOURCE`.
public func hasCapability(_ capability: Int32) -> Bool {
  guard let mask = (try? ProcessStatus.read(pid: getpid()))?.effectiveCapabilities else { return false }
  return mask & (1 << UInt64(capability)) != 0
}
