import Glibc

/// Sets a process's `oom_score_adj` (-1000 never OOM-killed ... 1000 killed first), through
/// `/proc/PID/oom_score_adj`.
///
/// - Throws: ``SystemError`` (`EACCES` when lowering it without `CAP_SYS_RESOURCE`, `ENOENT` when it is gone).
public func setOOMScoreAdj(pid: Int32, _ value: Int32) throws(SystemError) {
  try writeTextFile("/proc/\(pid)/oom_score_adj", "\(value)")
}

/// Reads a process's `oom_score_adj` from `/proc/PID/oom_score_adj`.
///
/// - Throws: ``SystemError`` when the process is gone, or `EINVAL` if the file does not hold a number.
public func oomScoreAdj(pid: Int32) throws(SystemError) -> Int32 {
  let path = "/proc/\(pid)/oom_score_adj"
  let text = try readTextFile(path)
  guard let value = Int32(text.filter { !$0.isWhitespace }) else { throw SystemError(code: EINVAL, "parse \(path)") }
  return value
}
