import Foundation
import JetsamTestKit
import JetsamTestTraits
import Testing

/// libjetsam-crash is preloaded into every app: whatever it needs, every app loads. It is C and must need libc alone;
/// SwiftPM links it with swiftc, which adds the Swift runtime unless Package.swift keeps it out, and the runtime
/// brings a crash handler of its own into programs that are not Swift.
@Suite("The crash reporter needs libc alone", .timeLimit(.minutes(1)), .offThePool)
struct CrashLibraryDependencyTests {
  static var library: String { Binaries.current.directory + "/libjetsam-crash.so" }

  @Test("its dynamic section names no library but libc and the loader")
  func neededLibraries() throws {
    // binutils' readelf (scripts/install-deps.sh test); `--wide` keeps each entry on one line.
    let result = try runCommand("/usr/bin/readelf", ["--dynamic", "--wide", Self.library])
    #expect(result.status == 0, "\(result.stderr)")
    let needed = result.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
      line.split(separator: "[").last?.split(separator: "]").first.map(String.init)
    }
    #expect(needed.contains("libc.so.6"), "\(result.stdout)")
    let others = needed.filter { $0 != "libc.so.6" && !$0.hasPrefix("ld-linux") }
    #expect(others.isEmpty, "libjetsam-crash.so needs \(others)")
  }

  @Test("preloaded into a C program, it maps no Swift runtime")
  func preloadedMapsNoSwift() throws {
    // cat prints its own memory map: what the loader mapped with the library preloaded.
    let result = try runCommand(
      "/bin/cat", ["/proc/self/maps"], environment: ["LD_PRELOAD": Self.library, "PATH": "/usr/bin:/bin"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("libjetsam-crash.so"), "the library was not preloaded: \(result.stderr)")
    #expect(!result.stdout.contains("libswift"), "\(result.stdout)")
  }
}
