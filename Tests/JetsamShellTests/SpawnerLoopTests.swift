import Glibc
import JetsamPlatform
import JetsamSpawning
import JetsamTestTraits
import Testing

/// jetsam-spawner's own epoll loop: descriptors in, handlers called on the loop's thread, cancel, exit.
@Suite(.offThePool) struct SpawnerLoopTests {
  /// A pipe whose ends are closed when the test ends.
  private final class Pipe {
    let read: FileDescriptor
    let write: FileDescriptor
    init() throws {
      var fds: [Int32] = [-1, -1]
      try systemCall("pipe") { pipe(&fds) }
      read = FileDescriptor(rawValue: fds[0])
      write = FileDescriptor(rawValue: fds[1])
    }
    deinit {
      read.close()
      write.close()
    }
  }

  @Test func aReadableDescriptorCallsItsHandlerAndExitEndsTheRun() throws {
    let loop = try SpawnerLoop()
    let pipe = try Pipe()
    var calls: [UInt32] = []
    let source = try loop.watch(fd: pipe.read.rawValue, events: EpollEvents.readable) { events in
      calls.append(events)
      loop.exit(code: 7)
    }
    try pipe.write.writeAll([1])
    #expect(try loop.run() == 7)
    #expect(calls.count == 1 && calls[0] & EpollEvents.readable != 0)
    source.cancel()
  }

  @Test func aCancelledSourceIsNotCalledAgain() throws {
    let loop = try SpawnerLoop()
    let first = try Pipe()
    let second = try Pipe()
    var firstCalls = 0
    let cancelled = try loop.watch(fd: first.read.rawValue, events: EpollEvents.readable) { _ in firstCalls += 1 }
    let other = try loop.watch(fd: second.read.rawValue, events: EpollEvents.readable) { _ in loop.exit(code: 0) }
    cancelled.cancel()
    try first.write.writeAll([1])
    try second.write.writeAll([1])
    #expect(try loop.run() == 0)
    #expect(firstCalls == 0)
    other.cancel()
  }

  @Test func setIOEventsChangesWhatTheSourceWaitsFor() throws {
    let loop = try SpawnerLoop()
    let pipe = try Pipe()
    var seen: UInt32 = 0
    // The write end of an empty pipe is writable at once, once the source waits for that.
    let source = try loop.watch(fd: pipe.write.rawValue, events: EpollEvents.readable) { events in
      seen = events
      loop.exit(code: 0)
    }
    source.setIOEvents(EpollEvents.writable)
    #expect(try loop.run() == 0)
    #expect(seen & EpollEvents.writable != 0)
    source.cancel()
  }
}
