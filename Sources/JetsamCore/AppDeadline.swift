import JetsamValues

/// An app's earliest deadline, as the table's deadline index keeps it: sooner first, then by name, so the order is
/// total.
struct AppDeadline: Comparable, Sendable {
  var at: Instant
  var name: String

  static func < (a: AppDeadline, b: AppDeadline) -> Bool {
    a.at != b.at ? a.at < b.at : a.name < b.name
  }
}
