import JetsamCore
import JetsamPlatform

/// What an owner in the shell reports through its ``ResultInbox``: observations and results for the policy, and the
/// few notices only the daemon acts on. Each case is one kind of news, told once, by the owner that has it: nothing
/// is relayed from owner to owner on its way to the loop.
enum OwnerResult {
  /// Observations or results for the policy (`spawned`, `suspendCompleted`, `killSignalled`, `exited`…), fed to it
  /// in one run of the policy loop: a check that sees 1,000 apps stopped re-arms the deadline and saves the state
  /// once, not 1,000 times.
  case observed([PolicyEvent])
  /// A record is durable, and the policy has heard so: the log, the journal, the counters and the control socket's
  /// followers hear of it now.
  case recordDurable(ExitRecord)
  /// An app is wholly gone and its memory back: a fresh pressure sample is due.
  case memoryFreed
  /// An app's channel opened: kept in systemd's descriptor store, so that it outlives a restart of jetsamd.
  case channelOpened(app: String, fd: FileDescriptor)
  /// An app's channel closed with its app: removed from the descriptor store.
  case channelClosed(app: String)
  /// Every record that had to wait (a full disk, a previous jetsamd's leftovers) is now written.
  case backlogWritten
}
