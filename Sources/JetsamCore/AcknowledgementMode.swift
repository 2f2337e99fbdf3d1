/// Whether an app's acknowledgements are expected (and watched by the lifecycle watchdog).
public enum AcknowledgementMode: String, Sendable, Codable, Equatable {
  /// Once the app has sent a valid message on its channel.
  case auto
  /// From launch: an app that never answers is a hung app.
  case always
  /// Never: the app's acknowledgements are accepted but nothing is watched.
  case never
}
