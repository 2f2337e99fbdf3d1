import JetsamPlatform

/// `jetsam-sockets`, installed beside jetsamd: destroys the network sockets of the processes it is given, run through
/// the process launcher so that it is in the apps' network with the rights of whatever starts them (the spawner
/// service under systemd, where jetsamd has a network of its own and no `CAP_NET_ADMIN`).
struct SocketTool: Sendable {
  /// The program's path.
  var path: String

  /// The request that runs it on `pids`, keeping the sockets `keeper` (jetsamd) holds too, writing to `output`.
  func request(pids: [Int32], keeper: Int32, output: FileDescriptor) -> SpawnRequest {
    SpawnRequest(
      arguments: [path, "--except-held-by", String(keeper)] + pids.map { String($0) },
      environment: ["PATH=/usr/bin:/bin"], workingDirectory: "/", cgroupDirectory: nil, stdout: output)
  }
}
