import JetsamCore
import JetsamShell
import JetsamValues

/// Messages on an app's crash socket, as jetsamd takes them: each line a message from one of the app's processes or
/// from a process outside it (as the kernel's credentials would say), parsed, checked against the sender, and the
/// reports taken handed to the policy. Whatever the bytes, no report names a process other than its sender or one
/// outside the app, and no process is diagnosed twice or past the launch's budget.
enum CrashLineFuzzing {
  private static let app = FuzzPolicy.app
  private static let mainPID = FuzzPolicy.pid
  /// The app's processes (the main one and a child) and one outside it.
  private static let appProcesses: [Int32] = [mainPID, 4243]
  private static let senders: [Int32?] = [mainPID, 4243, 999, nil]

  static func run(_ bytes: [UInt8]) {
    let now = Instant.seconds(1)
    var (policy, _) = FuzzPolicy.running(at: now)
    var diagnosed: [Int32] = []
    for (index, message) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
      guard message.count <= CrashReportLine.maximumLength,
        let report = CrashReportLine.parse(String(decoding: message, as: UTF8.self))
      else { continue }
      let sender = senders[index % senders.count]
      // A thread is its process's own when their numbers agree (as a single-threaded process's main thread does).
      let refusal = CrashReportCheck.refusal(
        of: report, sender: sender, appProcesses: { appProcesses }, isThread: { tid, pid in tid == pid })
      guard refusal == nil else { continue }
      precondition(report.pid == sender && appProcesses.contains(report.pid), "a report taken from another sender")
      let actions = (try? policy.handle(.crashReported(app: app, pid: mainPID, crash: report, at: now))) ?? []
      for case .diagnose(_, _, .crash(let crash)) in actions {
        precondition(!diagnosed.contains(crash.pid), "a process diagnosed twice")
        diagnosed.append(crash.pid)
      }
    }
    precondition(diagnosed.count <= policy.config.crashDiagnosesPerLaunch, "more captures than a launch's budget")
  }
}
