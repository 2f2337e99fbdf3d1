extension Duration {
  /// The duration in seconds, as a Double.
  public var seconds: Double { Double(nanoseconds) / 1e9 }

  /// The duration multiplied by `scale`.
  public func scaled(by scale: Double) -> Duration { .nanoseconds(Int64(Double(nanoseconds) * scale)) }
}
