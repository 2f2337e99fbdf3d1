/// The words jetsamd writes to an app (PROTOCOL.md, *Daemon to app*): the first word of every line it sends.
///
/// Listed in `Tests/Fixtures/wire-lines.json` (`vocabulary.daemonToApp.words`), which the tests hold equal to
/// ``allCases``.
public enum DaemonMessageWord: String, Sendable, Equatable, CaseIterable {
  /// `hello version=1 app=NAME launch=N`: always the first line.
  case hello
  /// `event id=N name=EVENT …`: a lifecycle event (``AppEventName``).
  case event
  /// `reply id=R …`: the answer to a request (``AppReply``).
  case reply
  /// `error code=CODE message=TEXT [id=R]`: a line jetsamd could not take (``AppProtocolErrorCode``).
  case error
}
