import JetsamCore

/// Which launch an exit record ends: its app, launch number and process. A record read from the log and one still
/// queued for it are the same record when their keys are equal.
struct RecordKey: Hashable, Sendable {
  var app: String
  var launch: Int
  var pid: Int32

  init(_ record: ExitRecord) {
    app = record.app
    launch = record.launch
    pid = record.pid
  }
}
