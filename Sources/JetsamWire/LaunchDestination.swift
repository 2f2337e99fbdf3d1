/// Where a launch goes: `didFinishLaunching state=` (PROTOCOL.md, *Daemon to app*).
public enum LaunchDestination: String, Sendable, Equatable, CaseIterable {
  case foreground, background
}
