/// An app's process, as named in actions that concern several apps at once.
public struct AppProcessRef: Sendable, Equatable, Hashable {
  public var app: String
  public var pid: Int32

  public init(app: String, pid: Int32) {
    self.app = app
    self.pid = pid
  }
}
