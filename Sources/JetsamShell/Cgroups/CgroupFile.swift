import Glibc
import JetsamPlatform

/// A cgroup control file kept open for repeated reads with `pread` at offset 0 (kernfs regenerates the content on
/// every read from offset 0, so one descriptor serves for the cgroup's lifetime).
///
/// A value, not an owner: the ``AppCgroup`` or ``DeviceCgroup`` that opened it closes it.
struct CgroupFile: Sendable {
  /// Its directory and its name, kept apart: the files of one cgroup share one copy of the directory's path (an app
  /// has seven files open, and a thousand apps' full paths took 1 MB), and the whole path is only made for a message.
  let directory: String
  let name: String
  let descriptor: FileDescriptor

  /// The absolute path.
  var path: String { directory + "/" + name }

  /// Opens file `name` of `directory` read-only (`O_CLOEXEC` is added).
  static func open(_ name: String, in directory: String) throws(SystemError) -> CgroupFile {
    CgroupFile(directory: directory, name: name, descriptor: try FileDescriptor.open(directory + "/" + name, O_RDONLY))
  }

  /// Opens file `name` of `directory` if it exists, `nil` when the kernel does not provide it (older kernels, no swap
  /// accounting).
  static func openIfPresent(_ name: String, in directory: String) throws(SystemError) -> CgroupFile? {
    do throws(SystemError) {
      return try open(name, in: directory)
    } catch {
      if error.code == ENOENT { return nil }
      throw error
    }
  }

  func close() { descriptor.close() }

  /// Reads a file holding one number (`memory.current`, `memory.usage_in_bytes`, `cpuacct.usage`); `nil` for `max`.
  ///
  /// The hot path: one `pread` into a stack buffer, no heap allocation.
  func readNumber() throws -> Int64? {
    let parsed: ParsedNumber = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
      let count = try systemCall("pread \(path)") { pread(descriptor.rawValue, buffer.baseAddress, buffer.count, 0) }
      return parseNumber(UnsafeBufferPointer(rebasing: buffer[..<count]))
    }
    switch parsed {
    case .value(let value): return value
    case .max: return nil
    case .malformed: throw CgroupError(.unexpectedContent("not a number: \"\(try readText())\""), "read \(path)")
    }
  }

  /// Reads a file of one decimal number per line (`cgroup.procs`).
  ///
  /// Read on every suspend, resume and stop check of every app, so the usual case (a few processes) is one `pread`
  /// into a stack buffer: seq_file fills a read until it is full or the file ends, so a short read is the whole
  /// file. A longer file is read whole as text.
  func readNumberLines() throws -> [Int32] {
    let fitted: [Int32]?? = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buffer in
      let count = try systemCall("pread \(path)") { pread(descriptor.rawValue, buffer.baseAddress, buffer.count, 0) }
      guard count < buffer.count else { return nil }
      return parseNumberLines(UnsafeBufferPointer(rebasing: buffer[..<count]))
    }
    let numbers: [Int32]?
    if let fitted {
      numbers = fitted
    } else {
      numbers = Array(try readText().utf8).withUnsafeBufferPointer { parseNumberLines($0) }
    }
    guard let numbers else {
      throw CgroupError(.unexpectedContent("not one number per line: \"\(try readText())\""), "read \(path)")
    }
    return numbers
  }

  /// Reads the whole file as text, in as many `pread` calls as it takes (`cgroup.procs` can exceed a page).
  func readText() throws(SystemError) -> String {
    var bytes: [UInt8] = []
    var offset: Int64 = 0
    while true {
      let chunk = try descriptor.read(at: offset, capacity: 4096)
      if chunk.isEmpty { break }
      bytes += chunk
      offset += Int64(chunk.count)
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Reads a flat keyed file (`key value` per line: `memory.events`, `cpu.stat`, `cgroup.events`) and returns `key`'s
  /// value.
  ///
  /// - Throws: ``CgroupError`` (`unexpectedContent`) when the key is missing or not a number.
  func readKeyed(_ key: String) throws -> Int64 {
    let text = try readText()
    guard let value = keyedValue(key, in: text) else {
      throw CgroupError(.unexpectedContent("no numeric \"\(key)\" line"), "read \(path)")
    }
    return value
  }
}

/// The value of `key` in a flat keyed cgroup file (`key value` lines).
func keyedValue(_ key: String, in text: String) -> Int64? {
  for line in text.split(separator: "\n") {
    let fields = line.split(separator: " ", maxSplits: 1)
    if fields.count == 2, fields[0] == key { return Int64(fields[1].trimmingSpaces) }
  }
  return nil
}

private enum ParsedNumber {
  case value(Int64)
  case max
  case malformed
}

/// Parses lines of ASCII decimal digits; nil if any line is empty, holds anything else or overflows.
private func parseNumberLines(_ bytes: UnsafeBufferPointer<UInt8>) -> [Int32]? {
  var numbers: [Int32] = []
  var value: Int32 = 0
  var digits = 0
  for byte in bytes {
    if byte == UInt8(ascii: "\n") {
      guard digits > 0 else { return nil }
      numbers.append(value)
      value = 0
      digits = 0
      continue
    }
    let digit = byte &- UInt8(ascii: "0")
    guard digit < 10 else { return nil }
    let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
    let (sum, overflow2) = times10.addingReportingOverflow(Int32(digit))
    guard !overflow1, !overflow2 else { return nil }
    value = sum
    digits += 1
  }
  if digits > 0 { numbers.append(value) }
  return numbers
}

/// Parses ASCII decimal (an optional `-`), or `max`, followed by optional whitespace.
private func parseNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedNumber {
  var end = bytes.count
  while end > 0, bytes[end - 1] == UInt8(ascii: "\n") || bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
  if end == 3, bytes[0] == UInt8(ascii: "m"), bytes[1] == UInt8(ascii: "a"), bytes[2] == UInt8(ascii: "x") {
    return .max
  }
  var index = 0
  var negative = false
  if end > 0, bytes[0] == UInt8(ascii: "-") {
    negative = true
    index = 1
  }
  guard index < end else { return .malformed }
  var value: Int64 = 0
  while index < end {
    let digit = bytes[index] &- UInt8(ascii: "0")
    guard digit < 10 else { return .malformed }
    let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
    let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit))
    guard !overflow1, !overflow2 else { return .malformed }
    value = sum
    index += 1
  }
  return .value(negative ? -value : value)
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    var result = self
    while result.last == " " || result.last == "\n" { result.removeLast() }
    while result.first == " " { result.removeFirst() }
    return result
  }
}
