import Glibc

/// One name in a directory, as `readdir(3)` reports it.
public struct DirectoryEntry: Sendable, Hashable {
  /// The name, without the directory.
  public var name: String
  /// Whether it is a directory (`d_type` is `DT_DIR`; cgroupfs, procfs and tmpfs all fill `d_type` in).
  public var isDirectory: Bool
}

/// The entries of a directory, without `.` and `..`, in the order the file system gives them. The corresponding C
/// functions are `opendir` and `readdir`.
///
/// - Throws: ``SystemError`` (`ENOENT` when there is no such directory).
public func directoryEntries(_ path: String) throws(SystemError) -> [DirectoryEntry] {
  guard let directory = opendir(path) else { throw SystemError.current("opendir \(path)") }
  defer { closedir(directory) }
  var entries: [DirectoryEntry] = []
  while let entry = readdir(directory) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    if name == "." || name == ".." { continue }
    entries.append(DirectoryEntry(name: name, isDirectory: entry.pointee.d_type == UInt8(DT_DIR)))
  }
  return entries
}
