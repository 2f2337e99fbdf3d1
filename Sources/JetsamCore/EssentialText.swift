/// Text helpers the daemon's modules need without the full Foundation (jetsamd links only FoundationEssentials:
/// Foundation's own library, its internationalization and ICU data cost ~7 MB of resident memory).
extension Double {
  /// The value with exactly `digits` decimals, halves rounded away from zero (as `String(format: "%.<digits>f")`
  /// but for exact halves, which printf rounds to even), for what jetsam prints: seconds and sizes.
  public func formatted(decimals digits: Int) -> String {
    guard isFinite else { return description }
    var scale: Double = 1
    for _ in 0..<digits { scale *= 10 }
    let scaled = (abs(self) * scale).rounded(.toNearestOrAwayFromZero)
    guard scaled < 9e15 else { return description }
    let units = Int64(scaled)
    let whole = units / Int64(scale)
    let fraction = String(units % Int64(scale))
    let sign = self < 0 && units != 0 ? "-" : ""
    guard digits > 0 else { return "\(sign)\(whole)" }
    return "\(sign)\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
  }
}

extension StringProtocol {
  /// Without leading and trailing spaces, tabs and line breaks.
  public var trimmingWhitespace: String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0.isNewline }
    guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
      return ""
    }
    return String(self[first...last])
  }
}

/// The directory part of a path (`/a/b` → `/a`, `b` → `.`, `/b` → `/`), like `dirname`.
public func directoryPart(of path: String) -> String {
  guard let slash = path.lastIndex(of: "/") else { return "." }
  return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// The last component of a path (`/a/b.json5` → `b.json5`), like `basename` without a trailing slash.
public func lastPathComponent(of path: String) -> String {
  guard let slash = path.lastIndex(of: "/") else { return path }
  return String(path[path.index(after: slash)...])
}
