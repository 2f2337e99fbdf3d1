/// The words an app writes to jetsamd (PROTOCOL.md, *App to daemon*): the first word of every line it sends.
///
/// Listed in `Tests/Fixtures/wire-lines.json` (`vocabulary.appToDaemon.words`), which the tests hold equal to
/// ``allCases``, so that the Python client and the C test app are checked against the same words.
public enum AppMessageWord: String, Sendable, Equatable, CaseIterable {
  /// `hello version=1`: the app speaks the protocol.
  case hello
  /// `ack event=N`: the handler of event N returned.
  case ack
  /// `beginBackgroundTask id=R name=NAME [kind=processing]`.
  case beginBackgroundTask
  /// `endBackgroundTask task=T`.
  case endBackgroundTask
  /// `backgroundTimeRemaining id=R`.
  case backgroundTimeRemaining
  /// `stateSummary value=V`.
  case stateSummary
  /// `stateDigest phase=saved|restored|resumed value=V [validFor=S]`.
  case stateDigest
  /// `signpost name=NAME phase=begin|end|event`.
  case signpost
}
