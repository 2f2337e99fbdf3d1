import JetsamPlatform

/// Whether process `pid` exists and has not ended: a zombie, dead but not yet reaped, is not alive.
public func isAlive(_ pid: Int32) -> Bool {
  guard let stat = try? ProcessStat.read(pid: pid) else { return false }
  return !stat.hasEnded
}
