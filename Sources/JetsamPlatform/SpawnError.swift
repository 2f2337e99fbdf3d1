import Glibc

/// Why a program could not be started: the step that failed, the errno it failed with, and what it was about.
///
/// When the stage is one of the child's (``Stage/joinCgroup`` onwards) the program's code never ran.
public struct SpawnError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The step that failed, in the order the spawner performs them.
  public enum Stage: String, Sendable, Hashable, CaseIterable {
    /// The request itself is unusable (empty arguments, a NUL inside a string, a bad descriptor target).
    case invalidRequest
    /// No executable with that name in the PATH directories.
    case resolveExecutable
    /// The user name is unknown, or the password database failed.
    case lookUpUser
    /// Creating the error pipe in the daemon.
    case errorPipe
    /// `clone3` itself (the cgroup fd, or a kernel without clone3 / CLONE_INTO_CGROUP).
    case clone
    /// In the child: resetting signal dispositions and the mask.
    case signals
    /// In the child: writing `0` into a cgroup v1 `cgroup.procs`.
    case joinCgroup
    /// In the child: `unshare(CLONE_NEWCGROUP)`.
    case cgroupNamespace
    /// In the child: writing `/proc/self/oom_score_adj`.
    case oomScoreAdj
    /// In the child: `setsid`.
    case setsid
    /// In the child: `chdir`.
    case chdir
    /// In the child: `setgroups`, `setresgid`, `setresuid`.
    case setgroups
    case setgid
    case setuid
    /// In the child: opening `/dev/null` for a standard stream.
    case openDevNull
    /// In the child: duplicating a descriptor onto its target number.
    case redirectDescriptor
    /// In the child: marking the other descriptors close-on-exec.
    case closeDescriptors
    /// In the child: `execve`.
    case execve
    /// Reaching jetsamd's spawner service (`jetsam-spawner`), which starts apps outside jetsamd's sandbox.
    case spawnerService
  }

  /// The step that failed.
  public var stage: Stage
  /// The C `errno` of the failure (0 where there is none, e.g. an unknown user).
  public var errno: Int32
  /// What the step was about: the path, directory, id or descriptor named in ``description``.
  public var detail: String

  public init(stage: Stage, errno: Int32, detail: String = "") {
    self.stage = stage
    self.errno = errno
    self.detail = detail
  }

  /// The operation, e.g. `join cgroup /sys/fs/cgroup/memory/w1/cgroup.procs` or `chdir /srv/app`.
  public var operation: String {
    switch stage {
    case .invalidRequest: "invalid spawn request: \(detail)"
    case .resolveExecutable: "no executable named \(detail) in PATH"
    case .lookUpUser: "look up user \(detail)"
    case .errorPipe: "pipe2 for the spawn error pipe"
    case .clone: "clone3 into cgroup\(detail.isEmpty ? "" : " \(detail)")"
    case .signals: "reset signal dispositions and mask"
    case .joinCgroup: "join cgroup \(detail)"
    case .cgroupNamespace: "unshare a cgroup namespace"
    case .oomScoreAdj: "write oom_score_adj \(detail)"
    case .setsid: "setsid"
    case .chdir: "chdir \(detail)"
    case .setgroups: "setgroups \(detail)"
    case .setgid: "setgid \(detail)"
    case .setuid: "setuid \(detail)"
    case .openDevNull: "open /dev/null for \(detail)"
    case .redirectDescriptor: "dup2 \(detail)"
    case .closeDescriptors: "close_range (mark descriptors close-on-exec)"
    case .execve: "execve \(detail)"
    case .spawnerService: "ask the spawner service\(detail.isEmpty ? "" : " at \(detail)")"
    }
  }

  public var description: String {
    switch stage {
    case .invalidRequest, .resolveExecutable:
      return operation
    case .lookUpUser where errno == 0:
      return "no user named \(detail)"
    default:
      var text = "\(operation): \(String(cString: strerror(errno)))"
      if stage == .clone {
        switch errno {
        case EBADF: text += " (is the cgroup directory fd a cgroup v2 directory?)"
        case ENOSYS, E2BIG: text += " (the kernel lacks clone3 with CLONE_INTO_CGROUP, Linux 5.7+)"
        default: break
        }
      }
      return text
    }
  }
}
