/// A file lock one of an app's processes holds, as the shell found it (`/proc/PID/fdinfo`).
public struct HeldLock: Codable, Hashable, Sendable {
  /// The locked file's path (what the holder's descriptor points at).
  public var path: String
  /// `posix` (fcntl F_SETLK), `flock`, or `ofd` (open file description locks, F_OFD_SETLK).
  public var type: String
  /// `read` (shared) or `write` (exclusive).
  public var access: String
  /// The process that holds it.
  public var pid: Int32

  public init(path: String, type: String, access: String, pid: Int32) {
    self.path = path
    self.type = type
    self.access = access
    self.pid = pid
  }
}
