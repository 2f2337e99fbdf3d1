import FoundationEssentials
import JetsamCore
import JetsamPlatform

/// The daemon's ``RecordSink``: each record is encoded on the loop and written and fdatasync'd on a thread of its
/// own, so that a slow or full disk never holds the loop (a kill, a pressure sample, a watchdog ping); the result
/// comes back through the loop.
///
/// The writer thread is its own, not the one that reads `exits` pages: a long query never delays a record.
public final class RecordWriter: RecordSink {
  /// The log written to. Readers on the loop use it directly (its size, its files); only the writer thread
  /// appends to it and rotates it.
  public let log: ExitRecordLog
  private let work: BackgroundWork
  /// The last exit of every app known, asked on the loop when a rotation is due (the rotation keeps them).
  public var lastExits: () -> [ExitRecord] = { [] }

  init(log: ExitRecordLog, loop: EventLoop) throws {
    self.log = log
    work = try BackgroundWork(loop: loop, label: "jetsamd.records", qos: .userInitiated)
  }

  public var written: Int { log.written }

  public func write(_ record: ExitRecord, done: @escaping (Result<Void, SystemError>) -> Void) {
    let line: Data
    do {
      line = try ExitRecordLog.line(for: record)
    } catch {
      return done(.failure(error))
    }
    let now = Date()
    // Decided here, where the last exits are: the tail cannot move meanwhile, as the caller writes one at a time.
    let keptByRotation = log.isRotationDue(adding: line.count, now: now) ? lastExits() : nil
    work.run(
      { [log] in
        if let keptByRotation { log.rotate(keeping: keptByRotation) }
        return Result { () throws(SystemError) in try log.append(line: line, at: now) }
      },
      then: done)
  }
}
