import Glibc

/// What to start, where, and as whom: everything ``spawnProcess(_:)`` needs.
///
/// The program starts inside `cgroupDirectory` (cgroup v2, via `clone3(CLONE_INTO_CGROUP)`) and joins each of
/// `joinProcsFiles` (cgroup v1 `cgroup.procs` files, for the hybrid layout) before it executes a single instruction
/// of its own, so no memory it touches is ever charged elsewhere.
public struct SpawnRequest: Sendable {
  /// The argument vector; `arguments[0]` names the program, as a path (containing `/`) or a name looked up in PATH.
  public var arguments: [String]
  /// The program to run when it differs from `arguments[0]` (which is then only what the program sees as argv[0]).
  public var executable: String?
  /// The complete environment, as `KEY=VALUE` strings; its `PATH` also drives the executable lookup.
  public var environment: [String]
  /// The working directory, or `nil` to inherit the daemon's.
  public var workingDirectory: String?
  /// The user to run as, or `nil` to keep the daemon's credentials.
  public var user: SpawnUser?
  /// A cgroup v2 directory opened with `O_DIRECTORY` (on the hybrid layout a child of the unified mount), or `nil`
  /// to start in the daemon's own cgroup. The descriptor stays owned by the caller.
  public var cgroupDirectory: FileDescriptor?
  /// cgroup v1 `cgroup.procs` files the child writes `0` into before exec; if one fails, the program never runs.
  public var joinProcsFiles: [String]
  /// The child's `oom_score_adj` (-1000...1000); always written, so the daemon's own value is never inherited.
  /// Going below the daemon's own value needs `CAP_SYS_RESOURCE`; without it the spawn fails with stage
  /// ``SpawnError/Stage/oomScoreAdj`` and `EACCES` (the build machines' root lacks that capability).
  public var oomScoreAdj: Int32
  /// The program's standard input; `nil` means `/dev/null`. The descriptor stays owned by the caller.
  public var stdin: FileDescriptor?
  /// The program's standard output; `nil` means `/dev/null`. The descriptor stays owned by the caller.
  public var stdout: FileDescriptor?
  /// The program's standard error; `nil` means `/dev/null`. The descriptor stays owned by the caller.
  public var stderr: FileDescriptor?
  /// Extra descriptors the program receives: `source` (owned by the caller) appears as `target` (>= 3, distinct).
  /// Every other descriptor is closed at exec.
  public var passedDescriptors: [(source: FileDescriptor, target: Int32)]
  /// Whether the program gets a cgroup namespace of its own, rooted at the cgroups it starts in (needs
  /// `CAP_SYS_ADMIN`, see ``canCreateCgroupNamespaces``): it sees them as `/`, and where cgroup2 is mounted with
  /// `nsdelegate` (systemd's default) not even root can move it to a cgroup outside them.
  public var ownCgroupNamespace = false
  /// A name for what this starts, not passed to the program: a spawner service repeats it with the program's end
  /// (jetsamd names the app, so that if it was away when the app ended it can record it without its pid).
  public var label: String?

  /// Whether this process may give its children cgroup namespaces (`CAP_SYS_ADMIN` in its effective set); a
  /// systemd unit that leaves the capability out cannot.
  public static var canCreateCgroupNamespaces: Bool { hasCapability(capabilitySystemAdministration) }

  public init(
    arguments: [String],
    executable: String? = nil,
    environment: [String] = [],
    workingDirectory: String? = nil,
    user: SpawnUser? = nil,
    cgroupDirectory: FileDescriptor?,
    joinProcsFiles: [String] = [],
    oomScoreAdj: Int32 = 0,
    stdin: FileDescriptor? = nil,
    stdout: FileDescriptor? = nil,
    stderr: FileDescriptor? = nil,
    passedDescriptors: [(source: FileDescriptor, target: Int32)] = []
  ) {
    self.arguments = arguments
    self.executable = executable
    self.environment = environment
    self.workingDirectory = workingDirectory
    self.user = user
    self.cgroupDirectory = cgroupDirectory
    self.joinProcsFiles = joinProcsFiles
    self.oomScoreAdj = oomScoreAdj
    self.stdin = stdin
    self.stdout = stdout
    self.stderr = stderr
    self.passedDescriptors = passedDescriptors
  }
}
