import Glibc

/// Reads a small file (cgroupfs, procfs) whole, as text.
public func readTextFile(_ path: String, capacity: Int = 65536) throws(SystemError) -> String {
  let fd = try FileDescriptor.open(path, O_RDONLY)
  defer { fd.close() }
  var result = [UInt8]()
  var offset: Int64 = 0
  while true {
    let chunk = try fd.read(at: offset, capacity: capacity)
    if chunk.isEmpty { break }
    result += chunk
    offset += Int64(chunk.count)
  }
  return String(decoding: result, as: UTF8.self)
}

/// Writes `text` to an existing file (a cgroupfs or procfs control file) in a single write.
public func writeTextFile(_ path: String, _ text: String) throws(SystemError) {
  let fd = try FileDescriptor.open(path, O_WRONLY)
  defer { fd.close() }
  try fd.writeText(text)
}
