extension Dictionary {
  /// Removes the value for `key` and, once none is left, gives the dictionary's storage back.
  ///
  /// A dictionary never shrinks: one that held every app for a moment (1,000 stops being checked, 1,000 background
  /// apps watched until they were suspended) would keep that room for the daemon's life.
  public mutating func removeValueReleasingStorage(forKey key: Key) {
    removeValue(forKey: key)
    if isEmpty { self = [:] }
  }
}
