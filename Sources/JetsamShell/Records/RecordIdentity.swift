import JetsamCore

/// Which death a record is of: an app's launch and its process. Two records with the same identity are one record
/// written twice (a successor must write each left-over record once).
struct RecordIdentity: Hashable, Sendable {
  var app: String
  var launch: Int
  var pid: Int32

  init(_ record: ExitRecord) {
    app = record.app
    launch = record.launch
    pid = record.pid
  }
}
