import Foundation
import Glibc
import JetsamPlatform
import Testing

/// `/proc/PID/io`: what the disk-write monitor sums where a cgroup has no I/O accounting.
@Suite struct ProcessIOTests {
  static let sample =
    "rchar: 4292\nwchar: 39846497\nsyscr: 11\nsyscw: 48\nread_bytes: 0\nwrite_bytes: 26222592\n"
    + "cancelled_write_bytes: 5242880\n"

  @Test func fieldsAreParsed() {
    let io = ProcessIO(parsing: Self.sample)
    #expect(io == ProcessIO(parsing: Self.sample))
    #expect(io?.writeBytes == 26_222_592 && io?.writtenCharacters == 39_846_497)
    #expect(ProcessIO(parsing: "rchar: 1\nwchar: 2\n") == nil, "no write_bytes: not an io file")
  }

  @Test("a file written to disk counts in write_bytes before any fsync; a pipe only in wchar")
  func ownCounters() throws {
    // The package's build directory is on a real disk (tmpfs writes would not count, as measured).
    let path = FileManager.default.currentDirectoryPath + "/.build/process-io-test-\(getpid())"
    defer { unlink(path) }
    let before = try #require(try ProcessIO.read(pid: getpid()))
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    try #require(fd >= 0)
    let chunk = [UInt8](repeating: 7, count: 1 << 20)
    #expect(write(fd, chunk, chunk.count) == chunk.count)
    close(fd)
    let afterFile = try #require(try ProcessIO.read(pid: getpid()))
    #expect(afterFile.writeBytes - before.writeBytes >= 1 << 20)
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    defer { close(ends[0]) }
    #expect(write(ends[1], chunk, 4096) == 4096)
    close(ends[1])
    let afterPipe = try #require(try ProcessIO.read(pid: getpid()))
    #expect(afterPipe.writtenCharacters - afterFile.writtenCharacters >= 4096)
    #expect(afterPipe.writeBytes - afterFile.writeBytes < 4096, "a pipe is not storage")
  }
}
