import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamTestKit
import JetsamTestTraits
import Testing

@testable import JetsamShell

/// Parsing and value mapping of the cgroup layer: no root, no cgroups created.
@Suite(.offThePool) struct CgroupTestsParsing {
  static let hybridProcCgroup = """
    9:name=systemd:/
    8:pids:/
    4:memory:/process_api/4c9c
    2:cpuacct:/
    1:cpu:/
    0::/
    """

  @Test func parsesProcCgroupLines() throws {
    let lines = try ProcCgroupLine.parse("3:cpu,cpuacct:/a:b\n0::/user.slice/x.service\n")
    #expect(
      lines == [
        ProcCgroupLine(hierarchyID: 3, controllers: ["cpu", "cpuacct"], path: "/a:b"),
        ProcCgroupLine(hierarchyID: 0, controllers: [], path: "/user.slice/x.service"),
      ])
    #expect(lines.v1Path(of: .cpuacct) == "/a:b")
    #expect(lines.unifiedPath == "/user.slice/x.service")
    #expect(throws: CgroupError.self) { try ProcCgroupLine.parse("garbage\n") }
  }

  @Test func resolvesThePlacementPerHierarchy() throws {
    let mounts: [CgroupController: String] = [
      .memory: "/m", .cpu: "/c", .cpuacct: "/a", .pids: "/p",
    ]
    let layout = CgroupLayout.hybrid(controllers: mounts, unified: "/u")
    let placement = try layout.placement(fromProcCgroup: Self.hybridProcCgroup)
    #expect(placement.unified == "/")
    #expect(placement.v1 == [.memory: "/process_api/4c9c", .cpu: "/", .cpuacct: "/", .pids: "/"])

    let location = CgroupLocation(layout: layout, below: placement, name: "dev").child("app")
    #expect(location.v2.path == "/u/dev/app")
    #expect(location.directory(for: .memory)?.path == "/m/process_api/4c9c/dev/app")
    #expect(location.directory(for: .cpu)?.path == "/c/dev/app")

    let v2 = CgroupLayout.unified(root: "/sys/fs/cgroup")
    let v2Placement = try v2.placement(fromProcCgroup: "0::/system.slice/jetsamd.service\n")
    #expect(v2Placement == CgroupPlacement(unified: "/system.slice/jetsamd.service"))

    let missingPids = Self.hybridProcCgroup.split(separator: "\n").filter { !$0.contains("pids") }.joined(
      separator: "\n")
    #expect(throws: CgroupError.self) { try layout.placement(fromProcCgroup: missingPids) }
  }

  @Test func coMountedControllersShareADirectory() {
    let layout = CgroupLayout.hybrid(
      controllers: [.memory: "/m", .cpu: "/cc", .cpuacct: "/cc", .pids: "/p"], unified: "/u")
    let location = CgroupLocation(
      layout: layout, below: CgroupPlacement(unified: "/", v1: [.memory: "/", .cpu: "/s", .cpuacct: "/s", .pids: "/"]),
      name: "dev")
    #expect(location.controllerDirectories.count == 3)
    #expect(location.directory(for: .cpu) == location.directory(for: .cpuacct))
    #expect(location.directory(for: .cpu)?.controllers == [.cpu, .cpuacct])
    #expect(location.directory(for: .cpu)?.path == "/cc/s/dev")
  }

  @Test func limitsMapToV1ControlFiles() {
    let values = AppLimits(memoryBytes: 32 * mebibyte, cpuPercent: 50, pids: 16)
      .controlFileValues(pureV2: false, swapControl: false)
    #expect(values[.memory] == [CgroupFileValue("memory.limit_in_bytes", "33554432")])
    #expect(
      values[.cpu] == [CgroupFileValue("cpu.cfs_period_us", "100000"), CgroupFileValue("cpu.cfs_quota_us", "50000")])
    #expect(values[.pids] == [CgroupFileValue("pids.max", "16")])
    let unlimited = AppLimits.unlimited.controlFileValues(pureV2: false, swapControl: false)
    #expect(unlimited[.memory] == [CgroupFileValue("memory.limit_in_bytes", "-1")])
    #expect(unlimited[.cpu]?.last == CgroupFileValue("cpu.cfs_quota_us", "-1"))
    #expect(unlimited[.pids] == [CgroupFileValue("pids.max", "max")])
  }

  @Test func limitsMapToV2ControlFiles() {
    let values = AppLimits(memoryBytes: 32 * mebibyte, cpuPercent: 150, pids: 16)
      .controlFileValues(pureV2: true, swapControl: true)
    #expect(
      values[.memory] == [
        CgroupFileValue("memory.max", "33554432"), CgroupFileValue("memory.swap.max", "0"),
        CgroupFileValue("memory.oom.group", "1"),
      ])
    #expect(values[.cpu] == [CgroupFileValue("cpu.max", "150000 100000")])
    let unlimited = AppLimits.unlimited.controlFileValues(pureV2: true, swapControl: false)
    #expect(unlimited[.memory] == [CgroupFileValue("memory.max", "max"), CgroupFileValue("memory.oom.group", "1")])
    #expect(unlimited[.cpu] == [CgroupFileValue("cpu.max", "max 100000")])
    #expect(unlimited[.pids] == [CgroupFileValue("pids.max", "max")])
  }

  @Test(arguments: [
    AppLimits(memoryBytes: 0), AppLimits(cpuPercent: 0.5), AppLimits(cpuPercent: .nan), AppLimits(pids: 0),
  ])
  func rejectsLimitsTheKernelWouldRefuse(_ limits: AppLimits) {
    #expect(throws: CgroupError.self) { try limits.validate("test") }
  }

  @Test func namesLibcgroupErrorCodesItself() {
    #expect(CgroupError.libcgroupCodeName(50016) == "ECGOTHER")
    #expect(CgroupError.libcgroupCodeName(50023) == "ECGEOF")
    #expect(CgroupError.libcgroupCodeName(50030) == "ECGNONEMPTY")
    let error = CgroupError(.libcgroup(code: 50016, errno: EACCES), "create cgroup memory:/x")
    #expect(error.description == "create cgroup memory:/x: libcgroup ECGOTHER (50016): Permission denied")
  }

  @Test(arguments: ["", "a/b", ".hidden", "cgroup.procs", "memory.x"])
  func rejectsCgroupNamesThatAreNotOneComponent(_ name: String) {
    #expect(throws: CgroupError.self) { try validateCgroupName(name, "test") }
  }
}

/// The cgroup layer on the real kernel: creates cgroups next to the test process's own, starts processes in them.
@Suite(.serialized, .enabled(if: isRoot, "needs root: creates cgroups"), .timeLimit(.minutes(1)), .offThePool)
struct CgroupTests {
  @Test func detectsTheLayoutOfThisMachine() throws {
    let layout = try CgroupLayout.detect()
    let own = try layout.ownCgroup(of: getpid())
    let lines = try ProcCgroupLine.parse(try readTextFile("/proc/self/cgroup"))
    #expect(own.unified == lines.unifiedPath)
    if access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0 {
      #expect(layout == .unified(root: "/sys/fs/cgroup"))
      return
    }
    // The build machines: v1 controllers one per mount, cgroup2 without controllers at /sys/fs/cgroup/unified.
    #expect(
      layout
        == .hybrid(
          controllers: [
            .memory: "/sys/fs/cgroup/memory", .cpu: "/sys/fs/cgroup/cpu", .cpuacct: "/sys/fs/cgroup/cpuacct",
            .pids: "/sys/fs/cgroup/pids",
          ], unified: "/sys/fs/cgroup/unified"))
    #expect(own.v1[.memory] == lines.v1Path(of: .memory))
    #expect(own.v1[.pids] == lines.v1Path(of: .pids))
  }

  @Test func createsDeviceAndAppInEveryHierarchyAndRemovesThem() throws {
    let scratch = try ScratchDevice("dirs")
    defer { scratch.tearDown() }
    let device = scratch.device
    let own = try scratch.layout.ownCgroup()
    func under(_ mount: String, _ relative: String) -> String { relative == "/" ? mount : mount + relative }
    switch scratch.layout {
    case .hybrid(let mounts, let unified):
      var expected = CgroupController.allCases.map { under(mounts[$0]!, own.v1[$0]!) + "/" + device.name }
      expected.append(under(unified, own.unified) + "/" + device.name)
      #expect(Set(device.directories) == Set(expected))
    case .unified(let root):
      let base = own.unified.hasSuffix("/supervisor") ? String(own.unified.dropLast(11)) : own.unified
      #expect(device.directories == [under(root, base) + "/" + device.name])
      let enabled = try readTextFile(device.unifiedDirectory + "/cgroup.subtree_control")
      #expect(enabled.contains("memory") && enabled.contains("cpu") && enabled.contains("pids"))
    }
    for directory in device.directories { #expect(access(directory, F_OK) == 0, "\(directory)") }

    let app = try device.makeApp(name: "app", limits: .unlimited)
    #expect(app.directories == device.directories.map { $0 + "/app" })
    for directory in app.directories { #expect(access(directory, F_OK) == 0, "\(directory)") }
    if scratch.layout.isPureV2 {
      #expect(app.joinProcsFiles.isEmpty)
    } else {
      #expect(Set(app.joinProcsFiles) == Set(app.directories.dropLast().map { $0 + "/cgroup.procs" }))
    }
    #expect(try device.appNames() == ["app"])
    #expect(throws: CgroupError.self) { try device.makeApp(name: "app", limits: .unlimited) }
    let adopted = try device.adoptApp(name: "app")
    #expect(adopted.directories == app.directories)
    #expect(throws: CgroupError.self) { try device.adoptApp(name: "missing") }

    #expect(try eventually(timeout: .seconds(5)) { try app.removeIfEmpty() })
    for directory in app.directories { #expect(access(directory, F_OK) != 0, "\(directory) still exists") }
    // A device with an (empty) app left inside is removed with it.
    _ = try device.makeApp(name: "left-behind", limits: .unlimited)
    #expect(try eventually(timeout: .seconds(5)) { try device.removeIfEmpty() })
    for directory in device.directories { #expect(access(directory, F_OK) != 0, "\(directory) still exists") }
  }

  @Test func writesLimitsAndReadsThemBack() throws {
    let scratch = try ScratchDevice("limits")
    defer { scratch.tearDown() }
    let app = try scratch.device.makeApp(
      name: "capped", limits: AppLimits(memoryBytes: 64 * mebibyte, cpuPercent: 50, pids: 32))
    func read(_ controller: CgroupController, _ file: String) throws -> String {
      try readTextFile(app.directory(for: controller)! + "/" + file).withoutTrailingNewlines
    }
    #expect(try app.memoryLimit() == 64 * mebibyte)
    #expect(try read(.pids, "pids.max") == "32")
    if scratch.layout.isPureV2 {
      #expect(try read(.memory, "memory.max") == "67108864")
      #expect(try read(.cpu, "cpu.max") == "50000 100000")
      #expect(try read(.memory, "memory.oom.group") == "1")
    } else {
      #expect(try read(.memory, "memory.limit_in_bytes") == "67108864")
      #expect(try read(.cpu, "cpu.cfs_quota_us") == "50000")
      #expect(try read(.cpu, "cpu.cfs_period_us") == "100000")
    }

    try app.setLimits(AppLimits(memoryBytes: 48 * mebibyte, cpuPercent: 25))
    #expect(try app.memoryLimit() == 48 * mebibyte)
    #expect(try read(.pids, "pids.max") == "max")
    #expect(
      try read(.cpu, scratch.layout.isPureV2 ? "cpu.max" : "cpu.cfs_quota_us")
        == (scratch.layout.isPureV2 ? "25000 100000" : "25000"))

    try app.setLimits(.unlimited)
    #expect(try app.memoryLimit() == nil)
    #expect(
      try read(.cpu, scratch.layout.isPureV2 ? "cpu.max" : "cpu.cfs_quota_us")
        == (scratch.layout.isPureV2 ? "max 100000" : "-1"))
    #expect(throws: CgroupError.self) { try app.setLimits(AppLimits(cpuPercent: 0)) }
  }

  @Test func invalidLimitsCreateNothing() throws {
    let scratch = try ScratchDevice("invalid")
    defer { scratch.tearDown() }
    #expect(throws: CgroupError.self) { try scratch.device.makeApp(name: "bad", limits: AppLimits(memoryBytes: -1)) }
    #expect(try scratch.device.appNames().isEmpty)
  }

  @Test func aValueTheKernelRejectsRollsTheAppBack() throws {
    let scratch = try ScratchDevice("rejected")
    defer { scratch.tearDown() }
    // pids.max above PID_MAX_LIMIT passes our validation but the kernel answers EINVAL.
    #expect {
      try scratch.device.makeApp(name: "too-many", limits: AppLimits(pids: 10_000_000))
    } throws: { error in
      guard let error = error as? CgroupError, case .libcgroup(let code, let errnoValue) = error.reason else {
        return false
      }
      return CgroupError.libcgroupCodeName(code) == "ECGOTHER" && errnoValue == EINVAL
        && error.operation.contains("pids.max=10000000")
    }
    #expect(try scratch.device.appNames().isEmpty)
    for directory in scratch.device.directories {
      #expect(access(directory + "/too-many", F_OK) != 0, "\(directory)/too-many left behind")
    }
  }

  @Test func aRestartedDaemonReusesTheDeviceAndAdoptsItsApps() throws {
    let scratch = try ScratchDevice("restart")
    defer { scratch.tearDown() }
    let app = try scratch.device.makeApp(name: "survivor", limits: AppLimits(memoryBytes: 96 * mebibyte))
    let pid = try scratch.startInApp(app, "exec sleep 60")

    let again = try DeviceCgroup.create(layout: scratch.layout, name: scratch.device.name)
    #expect(again.directories == scratch.device.directories)
    #expect(try again.appNames() == ["survivor"])
    let adopted = try again.adoptApp(name: "survivor")
    #expect(try adopted.processIDs() == [pid])
    #expect(try adopted.memoryLimit() == 96 * mebibyte)
    try adopted.killAll()
    #expect(try eventually(timeout: .seconds(5)) { try !adopted.isPopulated() })
    #expect(try eventually(timeout: .seconds(5)) { try again.removeIfEmpty() })
  }

  @Test func capsTheAppsCPUTogetherAndClampsAppCapsToIt() throws {
    let scratch = try ScratchDevice("cpu")
    defer { scratch.tearDown() }
    let device = scratch.device
    try device.setAppsCPULimit(percent: 50)
    #expect(try device.appsCPULimit() == 50)
    let app = try device.makeApp(name: "greedy", limits: AppLimits(cpuPercent: 80))
    let quotaFile = app.directory(for: .cpu)! + (scratch.layout.isPureV2 ? "/cpu.max" : "/cpu.cfs_quota_us")
    func quota() throws -> String { try readTextFile(quotaFile).withoutTrailingNewlines }
    if scratch.layout.isPureV2 {
      #expect(try quota() == "80000 100000")  // v2 applies min(app, device) by itself
    } else {
      #expect(try quota() == "50000")  // v1 would refuse 80000 under a 50000 parent (EINVAL)
      try device.setAppsCPULimit(percent: 30)
      #expect(try quota() == "30000")
    }
    try device.setAppsCPULimit(percent: nil)
    #expect(try device.appsCPULimit() == nil)
  }

  @Test func countsAProcessStartedInTheApp() throws {
    let scratch = try ScratchDevice("count")
    defer { scratch.tearDown() }
    let app = try scratch.device.makeApp(name: "counted", limits: AppLimits(memoryBytes: 256 * mebibyte))
    #expect(try app.isPopulated() == false)
    let pid = try scratch.startInApp(app, "exec sleep 60")
    #expect(try app.processIDs() == [pid])
    #expect(try app.isPopulated())
    // Read the counters once the shell has become sleep: while it execs, memory moves and frees.
    let execed = eventually(timeout: .seconds(5)) {
      (try? readTextFile("/proc/\(pid)/comm"))?.hasPrefix("sleep") == true
    }
    #expect(execed)
    usleep(50_000)
    let usage = try app.memoryUsage()
    #expect(usage > 0)
    #expect(try app.peakMemory() >= usage)
    #expect(try scratch.device.memoryUsage() >= usage)
    #expect(try app.cpuSeconds() >= 0)
    #expect(try app.oomKillCount() == 0)
    // The device's counter includes its apps; the test process itself stays outside the device.
    #expect(!(try readTextFile(scratch.device.unifiedDirectory + "/cgroup.procs")).contains("\(getpid())"))
  }

  @Test func freezeStopsTheAppAndThawResumesIt() throws {
    let scratch = try ScratchDevice("freeze")
    defer { scratch.tearDown() }
    let app = try scratch.device.makeApp(name: "busy", limits: .unlimited)
    let pid = try scratch.startInApp(app, "while :; do :; done")
    let start = try app.cpuSeconds()
    #expect(try eventually(timeout: .seconds(5)) { try app.cpuSeconds() > start + 0.05 }, "the busy loop never ran")

    _ = try app.events()  // arms POLLPRI
    try app.freeze()
    // The way the daemon learns it: POLLPRI on cgroup.events, then read it through the same descriptor.
    var events = CgroupEvents(populated: true, frozen: false)
    let deadline = ContinuousClock.now + .seconds(5)
    while !events.frozen && ContinuousClock.now < deadline {
      if pollDescriptor(app.eventsDescriptor, events: Int16(POLLPRI), timeout: .seconds(1)) & Int16(POLLPRI) != 0 {
        events = try app.events()
      }
    }
    #expect(events == CgroupEvents(populated: true, frozen: true))
    #expect(try app.isFrozen())
    #expect(processState(pid: pid) == "S")  // the v2 freezer parks tasks in S, unlike SIGSTOP's T
    let frozenAt = try app.cpuSeconds()
    usleep(300_000)
    #expect(try app.cpuSeconds() - frozenAt < 0.01, "CPU time advanced while frozen")

    try app.thaw()
    #expect(try eventually(timeout: .seconds(5)) { try !app.isFrozen() })
    #expect(try eventually(timeout: .seconds(5)) { try app.cpuSeconds() > frozenAt + 0.05 }, "no progress after thaw")

    // A frozen app can still be killed at once (unlike with the v1 freezer).
    try app.freeze()
    #expect(try eventually(timeout: .seconds(5)) { try app.isFrozen() })
    try app.killAll()
    #expect(try eventually(timeout: .seconds(5)) { try !app.isPopulated() })
    #expect(scratch.waitForExit(pid).map { killedBySignal($0, SIGKILL) } == true)
  }

  @Test func killAllEmptiesTheApp() throws {
    let scratch = try ScratchDevice("kill")
    defer { scratch.tearDown() }
    let app = try scratch.device.makeApp(name: "victim", limits: .unlimited)
    let pid = try scratch.startInApp(app, "sleep 60 & sleep 60 & wait")
    #expect(try eventually(timeout: .seconds(5)) { try app.processIDs().count == 3 })
    _ = try app.events()
    try app.killAll()
    #expect(pollDescriptor(app.eventsDescriptor, events: Int16(POLLPRI), timeout: .seconds(5)) & Int16(POLLPRI) != 0)
    #expect(try eventually(timeout: .seconds(5)) { try !app.isPopulated() })
    #expect(try app.processIDs().isEmpty)
    #expect(scratch.waitForExit(pid).map { killedBySignal($0, SIGKILL) } == true)
    #expect(try eventually(timeout: .seconds(5)) { try app.removeIfEmpty() })
    for directory in app.directories { #expect(access(directory, F_OK) != 0, "\(directory) still exists") }
  }

  @Test func removalRefusesWhileProcessesLiveAndSucceedsOnceTheyLeft() throws {
    let scratch = try ScratchDevice("busy-remove")
    defer { scratch.tearDown() }
    let app = try scratch.device.makeApp(name: "alive", limits: .unlimited)
    _ = try scratch.startInApp(app, "exec sleep 60")
    #expect(try app.removeIfEmpty() == false, "removed although a process lives in it")
    #expect((app.busyError() as? CgroupError)?.reason == .stillPopulated)
    // The libcgroup-managed directories alone (v1 ones; the only one on pure v2) refuse too, although libcgroup
    // 2.0.2 reports success for them.
    for directory in app.location.controllerDirectories {
      #expect(try directory.removeIfEmpty() == false, "\(directory.path) removed although populated")
    }
    for directory in app.directories { #expect(access(directory, F_OK) == 0, "\(directory) was removed") }
    try app.killAll()
    // One attempt never waits: the test retries while the killed process is still leaving.
    #expect(try eventually(timeout: .seconds(5)) { try app.removeIfEmpty() })
    for directory in app.directories { #expect(access(directory, F_OK) != 0, "\(directory) still exists") }
  }

  @Test func memoryCapMakesTheKernelOOMKillTheApp() throws {
    let scratch = try ScratchDevice("oom")
    defer { scratch.tearDown() }
    let app = try scratch.device.makeApp(name: "hog", limits: AppLimits(memoryBytes: 32 * mebibyte))
    let pid = try scratch.startInApp(
      app, "exec /usr/bin/python3 -c 'import time; b = b\"x\" * (100 << 20); time.sleep(60)'")
    let status = scratch.waitForExit(pid)
    #expect(status.map { killedBySignal($0, SIGKILL) } == true, "status \(String(describing: status))")
    #expect(try app.oomKillCount() >= 1)
    #expect(try app.peakMemory() <= 33 * mebibyte)
    #expect(try app.peakMemory() >= 24 * mebibyte)
  }

  @Test func usageThresholdFiresWhenTheDeviceCrossesIt() throws {
    let scratch = try ScratchDevice("threshold")
    defer { scratch.tearDown() }
    let device = scratch.device
    if !scratch.layout.supportsUsageThresholds {
      #expect(throws: SystemError.self) { try device.usageThresholdEventFD(bytes: 1 << 30) }
      return
    }
    let threshold = try device.memoryUsage() + 16 * mebibyte
    let event = try device.usageThresholdEventFD(bytes: threshold)
    defer { event.close() }
    #expect(pollDescriptor(event, events: Int16(POLLIN), timeout: .zero) == 0)
    let app = try device.makeApp(name: "grower", limits: .unlimited)
    _ = try scratch.startInApp(app, "exec /usr/bin/python3 -c 'import time; b = b\"x\" * (48 << 20); time.sleep(60)'")
    #expect(pollDescriptor(event, events: Int16(POLLIN), timeout: .seconds(10)) & Int16(POLLIN) != 0)
    var count: UInt64 = 0
    #expect(read(event.rawValue, &count, 8) == 8)
    #expect(count >= 1)
    #expect(try device.memoryUsage() >= threshold)
    #expect(throws: SystemError.self) { try device.usageThresholdEventFD(bytes: 0) }
  }

  @Test(.enabled(if: varTmpIsDiskBacked, "needs a disk-backed /var/tmp to make writeback stalls"))
  func pressureTriggerFiresWhenAnAppStallsOnMemory() throws {
    let scratch = try ScratchDevice("psi-fire")
    let scratchFile = "/var/tmp/\(scratch.device.name).data"
    defer {
      scratch.tearDown()
      unlink(scratchFile)
    }
    let trigger = try scratch.device.pressureTrigger(stallMicroseconds: 100_000, windowMicroseconds: 2_000_000)
    defer { trigger.close() }
    // Writing a file much larger than a 32 MiB cap makes the writer reclaim and wait for writeback: memory stalls,
    // counted in the unified memory.pressure even though the cap is a v1 one on the hybrid layout.
    let app = try scratch.device.makeApp(name: "writer", limits: AppLimits(memoryBytes: 32 * mebibyte))
    _ = try scratch.startInApp(
      app, "while :; do dd if=/dev/zero of='\(scratchFile)' bs=1M count=256 conv=fsync status=none; done")
    let revents = pollDescriptor(trigger, events: Int16(POLLPRI), timeout: .seconds(30))
    #expect(
      revents & Int16(POLLPRI) != 0,
      "no PSI event within 30 s: \((try? readTextFile(scratch.device.unifiedDirectory + "/memory.pressure")) ?? "")")
  }

  @Test func pressureTriggerOpensOnTheDevicesMemoryPressure() throws {
    let scratch = try ScratchDevice("psi")
    defer { scratch.tearDown() }
    // 2 s windows: the build machines lack CAP_SYS_RESOURCE, which shorter windows need.
    let trigger = try scratch.device.pressureTrigger(stallMicroseconds: 150_000, windowMicroseconds: 2_000_000)
    defer { trigger.close() }
    #expect(trigger.rawValue >= 0)
    #expect(pollDescriptor(trigger, events: Int16(POLLPRI), timeout: .zero) & Int16(POLLERR) == 0)
    #expect(throws: SystemError.self) {
      try scratch.device.pressureTrigger(stallMicroseconds: 150_000, windowMicroseconds: 100_000)
    }
    #expect(throws: SystemError.self) {
      try scratch.device.pressureTrigger(stallMicroseconds: 3_000_000, windowMicroseconds: 2_000_000)
    }
  }
}

extension String {
  fileprivate var withoutTrailingNewlines: String {
    var result = Substring(self)
    while result.last == "\n" { result.removeLast() }
    return String(result)
  }
}
