// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "jetsam",
  products: [
    .executable(name: "jetsamd", targets: ["jetsamd"]),
    .executable(name: "jetsamctl", targets: ["jetsamctl"]),
    .executable(name: "jetsam-spawner", targets: ["jetsam-spawner"]),
    .executable(name: "jetsam-testapp", targets: ["jetsam-testapp"]),
    .executable(name: "jetsam-stack", targets: ["jetsam-stack"]),
    .executable(name: "jetsam-sockets", targets: ["jetsam-sockets"]),
    .executable(name: "jetsam-runnable", targets: ["jetsam-runnable"]),
    .library(name: "jetsam-crash", type: .dynamic, targets: ["JetsamCrashHandler"]),
    .library(name: "JetsamCore", targets: ["JetsamCore"]),
    .library(name: "JetsamProtocol", targets: ["JetsamProtocol"]),
    .library(name: "JetsamClient", targets: ["JetsamClient"]),
    .library(name: "JetsamWire", targets: ["JetsamWire"]),
    .executable(name: "jetsam-demo-app", targets: ["jetsam-demo-app"]),
    .executable(name: "jetsam-lab", targets: ["jetsam-lab"]),
    .executable(name: "jetsam-sim", targets: ["jetsam-sim"]),
  ],
  targets: [
    // C libraries, imported as they are; all conversion lives in JetsamShell.
    .systemLibrary(name: "CCgroup", pkgConfig: "libcgroup", providers: [.apt(["libcgroup-dev"])]),
    .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
    // Raw syscalls and function-like macros that Swift cannot call directly.
    .target(name: "CJetsamShim"),

    // The app protocol's lines (PROTOCOL.md, *Lines*), one definition for jetsamd and the clients. Stdlib only.
    .target(name: "JetsamWire"),
    // Plain values the core, the platform layer and the spawner share: Instant, Signal, ProcessEnd. Stdlib only.
    .target(name: "JetsamValues"),
    // The pure policy core: events in, actions out. No I/O, no clock.
    .target(name: "JetsamCore", dependencies: ["JetsamValues", "JetsamWire"]),
    // The control socket's request and response types (pure data, shared by jetsamd and jetsamctl).
    .target(name: "JetsamProtocol", dependencies: ["JetsamCore", "JetsamValues", "JetsamWire"]),
    // A blocking client of the control socket (jetsamctl and the bench).
    .target(name: "JetsamControlClient", dependencies: ["JetsamProtocol"]),
    // System errors, file descriptors, /proc parsing, the monotonic clock, the log and starting a process (clone3
    // into a cgroup, as a user; pidfd controls) over Glibc, below the shell, the spawner, the lab, the test kit and
    // the bench.
    .target(name: "JetsamPlatform", dependencies: ["JetsamValues", "CJetsamShim"]),
    // The daemon's config: JSON5, the tree and its decoder, DaemonConfig and its settings, the loader. Shared by
    // jetsamd and the lab; no libcgroup, no libsystemd.
    .target(
      name: "JetsamConfig",
      dependencies: ["JetsamCore", "JetsamValues", "JetsamProtocol", "JetsamWire", "JetsamPlatform"]),
    // The spawner service with its messages and its loop (it starts processes through the platform layer's
    // spawnProcess): with JetsamPlatform, all that jetsam-spawner, the most privileged process, links.
    .target(name: "JetsamSpawning", dependencies: ["JetsamValues", "JetsamPlatform", "CJetsamShim"]),
    // A suspended app's network sockets destroyed (inet_diag netlink, /proc) and what jetsam-sockets prints of it:
    // the tool's code, and the reading of its output for jetsamd.
    .target(name: "JetsamSockets", dependencies: ["JetsamCore", "JetsamPlatform", "CJetsamShim"]),
    // The Linux I/O shell: cgroups, processes, signals, pressure sources, the record log, the event loop.
    .target(
      name: "JetsamShell",
      dependencies: [
        "JetsamCore", "JetsamValues", "JetsamProtocol", "JetsamWire", "JetsamPlatform", "JetsamConfig",
        "JetsamSpawning", "JetsamSockets", "CJetsamShim", "CCgroup", "CSystemd",
      ]
    ),
    // A jetsamd as a child process (started, awaited until it answers, stopped with escalation, its output), the one
    // way to start a helper program (SpawnedProgram, on the platform layer's spawnProcess) and the one waiting
    // helper: what the lab, the tests and the bench share. No test-only parts: the lab builds on it.
    .target(
      name: "JetsamDaemonProcess",
      dependencies: ["JetsamPlatform", "JetsamValues", "JetsamProtocol", "JetsamControlClient"]
    ),
    // What the tests and the bench share: scratch cgroups, a real jetsamd (on JetsamDaemonProcess), the built binaries,
    // programs run and started (JetsamDaemonProcess's SpawnedProgram), cleanup.
    .target(
      name: "JetsamTestKit",
      dependencies: [
        "JetsamPlatform", "JetsamValues", "JetsamCore", "JetsamProtocol", "JetsamControlClient", "JetsamDaemonProcess",
      ]),

    .executableTarget(
      name: "jetsamd",
      dependencies: [
        "JetsamShell", "JetsamConfig", "JetsamCore", "JetsamValues", "JetsamPlatform", "JetsamSpawning", "CJetsamShim",
      ]),
    // The spawner service: starts and reaps apps for a jetsamd that runs in a tighter sandbox than they do.
    .executableTarget(
      name: "jetsam-spawner", dependencies: ["JetsamSpawning", "JetsamPlatform", "JetsamValues", "CJetsamShim"]),
    .executableTarget(
      name: "jetsamctl",
      dependencies: ["JetsamProtocol", "JetsamCore", "JetsamWire", "JetsamControlClient", "CJetsamShim"]),
    // Call stacks of a live process with elfutils' libdwfl (libdw-dev): jetsamd's diagnostics run it as a child
    // process with a time budget, so that a capture that hangs never holds the daemon.
    .executableTarget(name: "jetsam-stack", linkerSettings: [.linkedLibrary("dw"), .linkedLibrary("elf")]),
    // Destroys a suspended app's network sockets, started by jetsamd through its process launcher: where the apps
    // run (the spawner service's network under systemd), with the rights of whatever starts them.
    .executableTarget(name: "jetsam-sockets", dependencies: ["JetsamSockets"]),
    // Whether a launch's commands can run, asked as the user they will run as (the kernel answers for the asker's
    // credentials): started by jetsamd through its process launcher, as the app's user.
    .executableTarget(name: "jetsam-runnable", dependencies: ["JetsamPlatform"]),
    // The crash reporter preloaded into apps (libjetsam-crash.so): tells jetsamd of a fatal signal and waits while
    // jetsam-stack takes the stacks, then lets the crash happen. Pure C, but SwiftPM links it with swiftc, which adds
    // the Swift runtime (swiftrt.o, libswiftCore.so) to every image: that would load the runtime, and its crash
    // handler, into every app, C or not. The driver leaves both out for Embedded Swift, so that mode links it as a
    // plain C library; -no-static-stdlib keeps `--static-swift-stdlib` (make install) from adding libstdc++ and libm.
    // It then needs libc alone (CrashLibraryDependencyTests).
    .target(
      name: "JetsamCrashHandler",
      linkerSettings: [.unsafeFlags(["-enable-experimental-feature", "Embedded", "-no-static-stdlib"])]),
    // A small C program that misbehaves on request (allocate, crash, fork); used by tests, the demo and labs.
    .executableTarget(name: "jetsam-testapp"),
    // `make bench`: jetsamd against earlyoom on the same machine, plus suspend/resume and idle-cost figures.
    .executableTarget(
      name: "jetsam-bench",
      dependencies: [
        "JetsamCore", "JetsamProtocol", "JetsamPlatform", "JetsamControlClient", "JetsamTestKit", "JetsamDaemonProcess",
        "CJetsamShim",
      ]),

    // The fuzz targets (every input jetsamd takes from outside) and their driver: libFuzzer under `make fuzz`,
    // a replayer of saved inputs otherwise. `-parse-as-library`: under libFuzzer, libFuzzer owns main.
    .target(
      name: "JetsamFuzzing",
      dependencies: [
        "JetsamShell", "JetsamConfig", "JetsamCore", "JetsamValues", "JetsamProtocol", "JetsamWire", "JetsamLab",
      ]),
    .executableTarget(
      name: "jetsam-fuzz", dependencies: ["JetsamFuzzing"], swiftSettings: [.unsafeFlags(["-parse-as-library"])]),

    // The app side of the app protocol (PROTOCOL.md), shaped after UIApplication; Foundation only.
    .target(name: "JetsamClient", dependencies: ["JetsamWire"]),
    // A real app with state to save and restore, and flags to misbehave on purpose; for labs and the demo.
    .executableTarget(name: "jetsam-demo-app", dependencies: ["JetsamClient"]),

    // What the self-contained HTML reports (the lab's and the simulator's) share: the style sheet, the pressure
    // palette, the series colours, escaping, axis ticks, number formatting. Stdlib only.
    .target(name: "JetsamReportPage"),
    // Labs (LABS.md): scenarios read from JSON5, run against a private or running jetsamd, and their reports.
    .target(
      name: "JetsamLab",
      dependencies: [
        "JetsamCore", "JetsamProtocol", "JetsamWire", "JetsamPlatform", "JetsamConfig", "JetsamControlClient",
        "JetsamDaemonProcess", "JetsamValues", "JetsamReportPage",
      ]),
    .executableTarget(
      name: "jetsam-lab",
      dependencies: ["JetsamLab", "JetsamCore", "JetsamConfig", "JetsamPlatform", "JetsamProtocol", "CJetsamShim"]),

    // The policy at scale with no processes: simulated time, a synthetic population from a JSON5 model, a report.
    .target(name: "JetsamSim", dependencies: ["JetsamCore", "JetsamValues", "JetsamConfig", "JetsamReportPage"]),
    .executableTarget(name: "jetsam-sim", dependencies: ["JetsamSim"]),

    // The trait that runs the kernel and integration suites off Swift's cooperative pool (their waits block).
    .target(name: "JetsamTestTraits", path: "Tests/JetsamTestTraits"),
    .testTarget(name: "JetsamCoreTests", dependencies: ["JetsamCore", "JetsamValues"]),
    .testTarget(name: "JetsamSimTests", dependencies: ["JetsamSim", "JetsamReportPage", "JetsamTestKit"]),
    .testTarget(name: "JetsamClientTests", dependencies: ["JetsamClient", "JetsamWire"]),
    .testTarget(name: "JetsamWireTests", dependencies: ["JetsamWire"]),
    .testTarget(name: "JetsamPlatformTests", dependencies: ["JetsamPlatform"]),
    .testTarget(name: "JetsamProtocolTests", dependencies: ["JetsamProtocol", "JetsamCore", "JetsamValues"]),
    .testTarget(
      name: "JetsamShellTests",
      dependencies: [
        "JetsamShell", "JetsamConfig", "JetsamSpawning", "JetsamPlatform", "JetsamCore", "JetsamValues",
        "JetsamProtocol", "JetsamWire", "JetsamTestKit", "JetsamDaemonProcess", "JetsamTestTraits",
      ]),
    // Fixtures/ holds scripts the tests run as apps (found through #filePath), not sources.
    .testTarget(
      name: "JetsamIntegrationTests",
      dependencies: [
        "JetsamCore", "JetsamProtocol", "JetsamPlatform", "JetsamControlClient", "JetsamTestKit", "JetsamDaemonProcess",
        "JetsamTestTraits",
      ],
      exclude: ["Fixtures"]),
    // How the app supervisor carries out actions, through recording fakes: no root, no kernel.
    .testTarget(
      name: "JetsamSupervisorTests",
      dependencies: [
        "JetsamShell", "JetsamConfig", "JetsamSpawning", "JetsamPlatform", "JetsamCore", "JetsamValues",
        "JetsamProtocol", "JetsamWire", "JetsamSockets",
      ]),
    // The lab's reports from runs made up in the test (no daemon, no root): what each report draws of them.
    .testTarget(name: "JetsamLabTests", dependencies: ["JetsamLab", "JetsamProtocol", "JetsamCore", "JetsamTestKit"]),
    // Every saved fuzz input (Tests/Fuzz: seeds and past crashers) through its target, in the unit run.
    .testTarget(name: "JetsamFuzzingTests", dependencies: ["JetsamFuzzing"], exclude: ["Inputs"]),
  ],
  swiftLanguageModes: [.v6]
)
