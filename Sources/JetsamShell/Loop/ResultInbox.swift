/// Where an owner in the shell reports what came of its work (``OwnerResult``): handed to it at init, the one way its
/// results reach the loop. The daemon's is ``DaemonInbox``; unit tests hand in one that records what was posted.
///
/// Posted on the loop's thread (what a helper thread found comes back through the loop first), and taken at once:
/// a post never waits, and results are taken in the order they were posted.
protocol ResultInbox: AnyObject {
  func post(_ result: OwnerResult)
}
