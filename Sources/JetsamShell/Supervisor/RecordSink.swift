import JetsamCore

/// Where exit records go, durably (the real one is the fsync'd ``ExitRecordLog``).
public protocol RecordSink: AnyObject {
  /// Writes `record` durably; when it returns the record survives a crash.
  func append(_ record: ExitRecord) throws
  /// How many records were written by this daemon.
  var written: Int { get }
}

extension ExitRecordLog: RecordSink {}
