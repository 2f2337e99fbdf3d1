/// The codes of jetsamd's `error code=CODE message=TEXT [id=R]` lines (PROTOCOL.md, *Daemon to app*).
///
/// Listed in `Tests/Fixtures/wire-lines.json` (`vocabulary.errorCodes`), which the tests hold equal to
/// ``allCases``.
public enum AppProtocolErrorCode: String, Sendable, Equatable, CaseIterable {
  /// The line breaks the rule of *Lines*, or a field's value is not what the word takes.
  case badLine
  /// The word is not one of ``AppMessageWord``.
  case unknownWord
  /// A field the word needs is missing.
  case missingField
  /// The line is longer than ``AppLine/maxBytes``.
  case tooLong
  /// `endBackgroundTask` of a task that is not open.
  case unknownTask
  /// `ack` of an event that was never sent.
  case unknownEvent
  /// A state summary over its limit.
  case tooLarge
  /// `beginBackgroundTask` while the most tasks an app may hold are open.
  case tooManyTasks
}
