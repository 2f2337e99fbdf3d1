import JetsamCore
import JetsamPlatform

/// Where exit records go, durably (the real one is ``RecordWriter``, in front of the fsync'd ``ExitRecordLog``).
public protocol RecordSink: AnyObject {
  /// Writes `record` durably, off the loop where that may block (a slow or full disk); `done` runs on the loop
  /// once the record survives a crash, or with the error that kept it from the log (the log is then as before).
  /// The caller starts the next write only once `done` has run, so records land in order.
  func write(_ record: ExitRecord, done: @escaping (Result<Void, SystemError>) -> Void)
  /// How many records were written by this daemon.
  var written: Int { get }
}
