import JetsamPlatform

/// `jetsam-stack`, the libdwfl call-stack taker installed beside jetsamd, run through the process launcher: by the
/// spawner service when there is one (jetsamd's own sandbox allows no ptrace), else by jetsamd.
///
/// A process of its own rather than libdwfl inside jetsamd: an attach to a process that cannot stop (uninterruptible
/// sleep, the v1 freezer) blocks inside ptrace for as long as that lasts, and only a process can be killed out of it.
struct StackTool: Sendable {
  /// The program's path.
  var path: String

  /// The descriptor number the target's pidfd has in the tool.
  static let pidfdDescriptor: Int32 = 3

  /// The request that runs it on `pid` (whose pidfd is `pidfd`) for `samples` samples `interval` apart, writing to
  /// `output`. The tool checks the pidfd after it has attached: should the process have ended and its pid gone to
  /// another, it takes nothing.
  func request(pid: Int32, pidfd: FileDescriptor, samples: Int, interval: Duration, output: FileDescriptor)
    -> SpawnRequest
  {
    SpawnRequest(
      arguments: [
        path, "--samples", String(samples), "--interval-ms", String(interval.nanoseconds / 1_000_000), "--pidfd",
        String(StackTool.pidfdDescriptor), String(pid),
      ],
      environment: ["PATH=/usr/bin:/bin"], workingDirectory: "/", cgroupDirectory: nil, stdout: output,
      passedDescriptors: [(source: pidfd, target: StackTool.pidfdDescriptor)])
  }
}
