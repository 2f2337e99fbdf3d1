import JetsamCore

/// The line jetsam's crash handler (libjetsam-crash) writes to the crash socket when one of the app's processes gets
/// a fatal signal. Only the syntax is checked here: whether the line is to be believed is ``CrashReportCheck``'s.
package enum CrashReportLine {
  /// The longest message taken as a report (the handler's are under 100 bytes).
  package static let maximumLength = 256

  /// `crash pid=P tid=T signal=S code=C address=0xA`, or nil.
  package static func parse(_ line: String) -> CrashReport? {
    let words = line.split(separator: " ")
    guard words.first == "crash" else { return nil }
    var fields: [Substring: Substring] = [:]
    for word in words.dropFirst() {
      guard let equals = word.firstIndex(of: "=") else { return nil }
      fields[word[..<equals]] = word[word.index(after: equals)...]
    }
    guard let pid = fields["pid"].flatMap({ Int32($0) }), let tid = fields["tid"].flatMap({ Int32($0) }),
      let signal = fields["signal"].flatMap({ Int32($0) }), let code = fields["code"].flatMap({ Int32($0) }),
      let address = fields["address"].flatMap({ $0.hasPrefix("0x") ? UInt64($0.dropFirst(2), radix: 16) : nil }),
      pid > 0, tid > 0, (1...64).contains(signal)
    else { return nil }
    return CrashReport(pid: pid, tid: tid, signal: signal, code: code, address: address)
  }
}
