import Glibc

/// The Swift runtime's demangler (`swift_demangle`, exported by libswiftCore, which jetsamd runs on anyway).
@_silgen_name("swift_demangle")
private func swiftDemangle(
  _ mangledName: UnsafePointer<CChar>?, _ mangledNameLength: Int, _ outputBuffer: UnsafeMutablePointer<CChar>?,
  _ outputBufferSize: UnsafeMutablePointer<Int>?, _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?

enum SwiftDemangler {
  /// `$s4main9spinForeveryyF` → `main.spinForever() -> ()`; any other name as it is.
  static func demangle(_ symbol: String) -> String {
    // Swift's manglings: $s (Swift 5+), _$s (some platforms), $S and _T0 (older compilers).
    guard symbol.hasPrefix("$s") || symbol.hasPrefix("_$s") || symbol.hasPrefix("$S") || symbol.hasPrefix("_T0")
    else { return symbol }
    return symbol.withCString { name in
      guard let demangled = swiftDemangle(name, strlen(name), nil, nil, 0) else { return symbol }
      defer { free(demangled) }
      return String(cString: demangled)
    }
  }
}
