import JetsamCore
import JetsamPlatform
import Testing

@testable import JetsamShell

/// Ended apps' cgroups go without the loop ever waiting: one attempt at once, then attempts on a timer that backs off,
/// until the cgroup goes or the reaper's patience runs out.
@Suite("Cgroup reaper")
struct CgroupReaperTests {
  let loop = FakeLoop()
  let reaper: CgroupReaper

  init() {
    reaper = CgroupReaper(loop: loop, log: Logger(threshold: .error))
  }

  /// A cgroup whose first `busy` removal attempts find it still busy.
  func cgroup(_ name: String, busy: Int) -> FakeCgroup {
    let cgroup = FakeCgroup(name: name, limits: AppLimits())
    cgroup.busyRemovals = busy
    return cgroup
  }

  @Test("an empty cgroup goes at once, and its waiters hear at once")
  func emptyGoesAtOnce() {
    let empty = cgroup("a", busy: 0)
    reaper.remove(empty)
    #expect(empty.calls == ["remove"] && !reaper.isRemoving("a"))
    var heard: [Bool] = []
    reaper.whenRemoved("a") { heard.append($0) }
    #expect(heard == [true])
    #expect(loop.timers.isEmpty, "no timer for a cgroup that went at once")
  }

  @Test("a busy cgroup is tried again after 1, 2, 4 ms…; its waiters hear once it has gone")
  func backsOff() {
    let busy = cgroup("a", busy: 3)
    reaper.remove(busy)
    reaper.remove(busy)
    #expect(busy.calls == ["remove"], "a cgroup already on its way out is not tried twice")
    #expect(reaper.isRemoving("a") && reaper.removing == ["a"])
    var heard: [Bool] = []
    reaper.whenRemoved("a") { heard.append($0) }
    // Attempts at 0, 1, 3 and 7 ms: the last one finds it empty.
    loop.advance(by: .milliseconds(6))
    #expect(busy.calls.count == 3 && heard.isEmpty)
    loop.advance(by: .milliseconds(1))
    #expect(busy.calls.count == 4 && heard == [true])
    #expect(!reaper.isRemoving("a") && reaper.removing.isEmpty)
  }

  @Test("a cgroup still busy after the reaper's patience stays, its waiters told so; tries were backed off to 200 ms")
  func givesUp() {
    let stuck = cgroup("stuck", busy: .max)
    reaper.remove(stuck)
    var heard: [Bool] = []
    reaper.whenRemoved("stuck") { heard.append($0) }
    loop.advance(by: CgroupReaper.patience - .milliseconds(300))
    #expect(heard.isEmpty, "given up before its patience ran out")
    loop.advance(by: .milliseconds(500))
    #expect(heard == [false] && !reaper.isRemoving("stuck"))
    // 10 s at most every 200 ms, after a few quick ones: about 60 attempts, never thousands.
    #expect(stuck.calls.count > 45 && stuck.calls.count < 70, "\(stuck.calls.count) attempts")
    let attempts = stuck.calls.count
    loop.advance(by: .seconds(10))
    #expect(stuck.calls.count == attempts, "not tried again once given up")
  }

  @Test("a cgroup that cannot be removed at all is not tried again")
  func removalError() {
    let broken = cgroup("broken", busy: 0)
    broken.removalError = CgroupError(.stillPopulated, "rmdir")
    reaper.remove(broken)
    #expect(!reaper.isRemoving("broken"))
    loop.advance(by: .seconds(1))
    #expect(broken.calls == ["remove"])
  }

  @Test("whenIdle is answered once every pending removal has ended, at once when none is pending")
  func idle() {
    var idle = 0
    reaper.whenIdle { idle += 1 }
    #expect(idle == 1)
    let quick = cgroup("quick", busy: 1)
    let slow = cgroup("slow", busy: 4)
    reaper.remove(quick)
    reaper.remove(slow)
    reaper.whenIdle { idle += 1 }
    loop.advance(by: .milliseconds(1))
    #expect(!reaper.isRemoving("quick") && reaper.isRemoving("slow") && idle == 1)
    loop.advance(by: .milliseconds(20))
    #expect(!reaper.isRemoving("slow") && idle == 2)
  }
}
