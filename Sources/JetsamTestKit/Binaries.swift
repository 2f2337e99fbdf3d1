import Foundation

/// Where the package's built programs are: jetsamd, jetsamctl, jetsam-testapp and jetsam-demo-app.
public struct Binaries: Sendable {
  /// The directory holding them.
  public let directory: String

  /// The binaries in `directory`, made absolute: jetsamd is told the apps' paths, and runs them in directories of
  /// their own.
  public init(directory: String) {
    self.directory =
      directory.hasPrefix("/") ? directory : FileManager.default.currentDirectoryPath + "/" + directory
  }

  /// The binaries of the build that runs this code: see ``locate(override:)``.
  public static let current = locate()

  /// Finds the binaries: `override` when given, else `$JETSAM_BIN_DIR` (a custom `--scratch-path` build, or the
  /// cgroup v2 VM), else the directory of the running executable when jetsamd is there (the test bundle in
  /// `.build/debug`, jetsam-bench in `.build/release`), else `<package root>/.build/debug`.
  public static func locate(override: String? = nil) -> Binaries {
    if let override { return Binaries(directory: override) }
    if let value = ProcessInfo.processInfo.environment["JETSAM_BIN_DIR"], !value.isEmpty {
      return Binaries(directory: value)
    }
    if let directory = runningExecutableDirectory {
      let beside = Binaries(directory: directory)
      if FileManager.default.isExecutableFile(atPath: beside.jetsamd) { return beside }
    }
    return Binaries(directory: packageRoot + "/.build/debug")
  }

  /// The directory of the running executable (`/proc/self/exe`).
  public static var runningExecutableDirectory: String? {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map {
      ($0 as NSString).deletingLastPathComponent
    }
  }

  /// The package root: three levels above this file (`Sources/JetsamTestKit/Binaries.swift`), for fixtures and the
  /// shipped configs.
  public static let packageRoot: String = {
    var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(3)
    return components.joined(separator: "/")
  }()

  /// The daemon.
  public var jetsamd: String { directory + "/jetsamd" }
  /// The control-socket command line tool.
  public var jetsamctl: String { directory + "/jetsamctl" }
  /// The misbehaving test program (`Sources/jetsam-testapp`).
  public var testapp: String { directory + "/jetsam-testapp" }
  /// The spawner service (`Sources/jetsam-spawner`).
  public var spawner: String { directory + "/jetsam-spawner" }
  /// The demo app with state to save and restore (`Sources/jetsam-demo-app`).
  public var demoApp: String { directory + "/jetsam-demo-app" }

  /// Those of jetsamd, jetsamctl and jetsam-testapp that are not there as executables.
  public var missing: [String] {
    [jetsamd, jetsamctl, testapp].filter { !FileManager.default.isExecutableFile(atPath: $0) }
  }
}
