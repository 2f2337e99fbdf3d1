import Glibc
import JetsamFuzzing

// Built two ways. `make fuzz` builds it with `-sanitize=fuzzer,address -DJETSAM_FUZZ`: libFuzzer's own main then
// drives the target named by JETSAM_FUZZ_TARGET. Every other build gets a plain main that replays files through a
// target, to reproduce a crasher without the sanitizers: `jetsam-fuzz TARGET FILE...`.

/// Writes one line to standard error.
func complain(_ message: String) {
  var line = message + "\n"
  line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

#if JETSAM_FUZZ
  /// Chosen once, before the first input, in `LLVMFuzzerInitialize`.
  nonisolated(unsafe) private var selectedTarget = FuzzTarget.controlRequest

  @_cdecl("LLVMFuzzerInitialize")
  public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>>>
  ) -> CInt {
    let name = getenv("JETSAM_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
      let known = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
      complain("jetsam-fuzz: set JETSAM_FUZZ_TARGET to one of: \(known)")
      exit(2)
    }
    selectedTarget = target
    return 0
  }

  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.run(UnsafeBufferPointer(start: data, count: size))
    return 0
  }
#else
  @main
  enum Replay {
    static func main() {
      let arguments = CommandLine.arguments.dropFirst()
      guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
        let known = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
        complain("usage: jetsam-fuzz \(known) FILE...   (replays each file through the fuzz target)")
        exit(2)
      }
      for path in arguments.dropFirst() {
        guard let file = fopen(path, "rb") else {
          complain("jetsam-fuzz: cannot open \(path)")
          exit(1)
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
          let count = fread(&buffer, 1, buffer.count, file)
          if count <= 0 { break }
          bytes += buffer[0..<count]
        }
        fclose(file)
        target.run(bytes)
        print("\(path): ok")
      }
    }
  }
#endif
