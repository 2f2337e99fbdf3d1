import JetsamCore

/// Carries out `defunctSockets`: the app's processes are listed on the loop (one cgroup read), and their network
/// sockets destroyed on a helper thread (/proc and netlink, ``NetworkSocketDestruction``), whose outcome comes back
/// on the loop. It decides nothing: whether an app's sockets go is the policy's.
final class SocketDefuncter {
  private let worker: any BackgroundRunning
  private let destroy: @Sendable ([Int32]) -> NetworkSocketDestruction.Outcome

  /// Destroys on `worker`; `destroy` is the real destruction unless a test fakes it.
  init(
    worker: any BackgroundRunning,
    destroy: @escaping @Sendable ([Int32]) -> NetworkSocketDestruction.Outcome = NetworkSocketDestruction.destroy(
      heldBy:)
  ) {
    self.worker = worker
    self.destroy = destroy
  }

  /// Destroys the network sockets of the processes `processes` lists, then calls `then` on the loop with what came
  /// of it (a failure to list them is its problem).
  func defunct(
    processes: () throws -> [Int32], then: @escaping (NetworkSocketDestruction.Outcome) -> Void
  ) {
    let pids: [Int32]
    do {
      pids = try processes()
    } catch {
      return then(NetworkSocketDestruction.Outcome(problem: "listing its processes: \(error)"))
    }
    guard !pids.isEmpty else { return then(NetworkSocketDestruction.Outcome()) }
    let destroy = self.destroy
    worker.run({ destroy(pids) }, then: then)
  }
}
