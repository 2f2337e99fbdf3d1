/// How a scenario names its apps: one name, a range of them (`app{1..200}`: app1 … app200), or a list; a step's
/// names must be among the scenario's apps, which its decoding is given (`DecodableWithConfiguration`).
extension Decoder {
  /// The names `written` stands for: itself, or, for `PREFIX{FIRST..LAST}SUFFIX`, one per number.
  func appNames(expanding written: String) throws -> [String] {
    guard let match = written.wholeMatch(of: /(.*)\{(\d+)\.\.(\d+)\}(.*)/) else { return [written] }
    guard let first = Int(match.2), let last = Int(match.3), first <= last, last - first < Scenario.maxApps else {
      throw failure(
        "\(written): expected a range {FIRST..LAST} of at most \(Scenario.maxApps) numbers, FIRST ≤ LAST")
    }
    return (first...last).map { "\(match.1)\($0)\(match.4)" }
  }

  /// The names `written` stands for, each one of `apps`.
  func appNames(_ written: String, in apps: Set<String>) throws -> [String] {
    let names = try appNames(expanding: written)
    try requireDescribed(names, in: apps)
    return names
  }

  /// One app name, or a list of them (each item a name or a range), each one of `apps`.
  func appNames(in apps: Set<String>) throws -> [String] {
    if let name = try? singleValueContainer().decode(String.self) { return try appNames(name, in: apps) }
    guard var list = try? unkeyedContainer() else { throw failure("expected an app name or a list of them") }
    guard !list.isAtEnd else { throw failure("expected at least one app") }
    // Every item read before any is looked up: a misspelt item is refused as such before an unknown app is.
    var items: [(decoder: any Decoder, names: [String])] = []
    while !list.isAtEnd {
      let item = try list.superDecoder()
      items.append((item, try item.appNames(expanding: try item.singleValueContainer().decode(String.self))))
    }
    for item in items { try item.decoder.requireDescribed(item.names, in: apps) }
    return items.flatMap(\.names)
  }

  /// One app: a name written here, one of `apps`.
  func appName(in apps: Set<String>) throws -> String {
    try appName(try expecting("expected an app name") { try singleValueContainer().decode(String.self) }, in: apps)
  }

  /// One app: `written` (a key's name, or this value), one of `apps`, not a range.
  func appName(_ written: String, in apps: Set<String>) throws -> String {
    let names = try appNames(written, in: apps)
    guard names.count == 1 else { throw failure("expected one app, not a range") }
    return names[0]
  }

  private func requireDescribed(_ names: [String], in apps: Set<String>) throws {
    for name in names where !apps.contains(name) {
      throw failure("no app \"\(name)\" in apps (known: \(apps.sorted().joined(separator: ", ")))")
    }
  }
}
