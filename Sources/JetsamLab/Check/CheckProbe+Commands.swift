import JetsamCore
import JetsamDaemonProcess
import JetsamProtocol

/// What the commands given for a program that does not speak the protocol change in the battery: which events they
/// answer (so that their checks are judged, and noted as judged through them), and the exercise after each launch.
extension CheckProbe {
  /// The options whose commands answer `event` for the program, as given (`--ready`, `--on didEnterBackground`,
  /// `--digest`); nil when none does. As PROTOCOL.md has it: `ready`'s first success acknowledges
  /// `didFinishLaunching`, an event's command hook acknowledges it, and the saved digest (after the hook)
  /// acknowledges `didEnterBackground`.
  func through(_ event: AppEventKind) -> [String]? {
    var options: [String] = []
    if event == .didFinishLaunching && commands.ready != nil { options.append("--ready") }
    if commands.hooks?[event.rawValue] != nil { options.append("--on \(event.rawValue)") }
    if event == .didEnterBackground && commands.digest != nil { options.append("--digest") }
    return options.isEmpty ? nil : options
  }

  /// `--digest`, after the save hook when `saving` and there is one; nil without `--digest` (the program reported
  /// its digests itself).
  func throughDigest(saving: Bool) -> [String]? {
    guard commands.digest != nil else { return nil }
    let save = saving ? through(.didEnterBackground)?.filter { $0 != "--digest" } ?? [] : []
    return save + ["--digest"]
  }

  /// Runs the exercise, once per process, for the launch now in the foreground: once it is up as far as anything
  /// tells (its `--ready` succeeded), and once a relaunch owing a restoration has its verdict, lest the exercise's
  /// state be taken for what it restored. What went wrong is kept in ``exerciseProblem``.
  mutating func exerciseNewLaunch() {
    guard let exercise, let pid, pid != exercisedPid else { return }
    exercisedPid = pid
    let app = app
    let timeline = timeline
    if commands.ready != nil {
      _ = eventually(timeout: Self.patience, interval: .milliseconds(20)) {
        timeline.all.contains {
          $0.kind == .acknowledgement && $0.app == app && $0.pid == pid
            && $0.name == AppEventKind.didFinishLaunching.rawValue
        }
      }
    }
    let session = session
    _ = eventually(timeout: Self.patience, interval: .milliseconds(20)) {
      let info = try? session.send(ControlRequest(verb: .ps)).apps?.first { $0.status.name == app }
      return info?.status.restoration != .pending
    }
    exerciseProblem = exercise.run()
  }
}
