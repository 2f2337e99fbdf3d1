import CJetsamShim
import Glibc
import JetsamPlatform

/// Kernel notifications on cgroup files that libcgroup has no API for: v1 memory thresholds (an eventfd registered
/// through `cgroup.event_control`) and PSI triggers (`memory.pressure`).
enum CgroupNotifications {
  /// Registers a v1 memory usage threshold and returns the eventfd that the kernel signals when usage crosses
  /// `bytes`, in either direction.
  ///
  /// - Parameters:
  ///   - memoryDirectory: the v1 memory cgroup's directory.
  ///   - bytes: the threshold.
  /// - Returns: an eventfd (`EFD_CLOEXEC | EFD_NONBLOCK`) owned by the caller; closing it unregisters the threshold.
  static func usageThreshold(memoryDirectory: String, bytes: Int64) throws(SystemError) -> FileDescriptor {
    guard bytes > 0 else {
      throw SystemError(code: EINVAL, "register a memory threshold of \(bytes) bytes in \(memoryDirectory)")
    }
    let usagePath = memoryDirectory + "/memory.usage_in_bytes"
    let controlPath = memoryDirectory + "/cgroup.event_control"
    let event = FileDescriptor(rawValue: try systemCall("eventfd for \(usagePath)") { jetsam_eventfd() })
    do throws(SystemError) {
      // The usage file's descriptor only names the file to watch; the kernel takes its own reference while
      // registering, so it can be closed right after. The registration lives as long as the eventfd (or the cgroup).
      let usage = try FileDescriptor.open(usagePath, O_RDONLY)
      defer { usage.close() }
      let control = try FileDescriptor.open(controlPath, O_WRONLY)
      defer { control.close() }
      do throws(SystemError) {
        try control.writeText("\(event.rawValue) \(usage.rawValue) \(bytes)")
      } catch {
        throw SystemError(code: error.code, "register threshold \(bytes) on \(usagePath) via \(controlPath)")
      }
    } catch {
      event.close()
      throw error
    }
    return event
  }

  /// Opens a PSI trigger on a `*.pressure` file: the descriptor reports `POLLPRI` when tasks in the cgroup stalled
  /// (`some`) for more than `stallMicroseconds` within any `windowMicroseconds` window.
  ///
  /// Windows run from 500 ms to 10 s; without `CAP_SYS_RESOURCE` (as on the build machines) the kernel accepts only
  /// multiples of 2 s. Poll for `POLLPRI`, not `POLLIN` (which is always set); `POLLERR` means the cgroup is gone.
  ///
  /// - Returns: the trigger's descriptor (`O_RDWR | O_NONBLOCK | O_CLOEXEC`), owned by the caller; closing it
  ///   removes the trigger.
  static func pressureTrigger(file: String, stallMicroseconds: Int, windowMicroseconds: Int) throws(SystemError)
    -> FileDescriptor
  {
    let trigger = "some \(stallMicroseconds) \(windowMicroseconds)"
    guard (500_000...10_000_000).contains(windowMicroseconds), stallMicroseconds > 0,
      stallMicroseconds <= windowMicroseconds
    else {
      throw SystemError(
        code: EINVAL, "create PSI trigger \"\(trigger)\" on \(file) (window 500000...10000000 µs, 0 < stall <= window)")
    }
    let descriptor = try FileDescriptor.open(file, O_RDWR | O_NONBLOCK)
    do throws(SystemError) {
      // With the terminating NUL, as the kernel's PSI documentation writes it: /proc/pressure/* overwrite the last
      // byte written with a NUL, cgroup files terminate the buffer themselves; the NUL suits both.
      try descriptor.writeAll(Array(trigger.utf8) + [0])
    } catch {
      descriptor.close()
      var hint = ""
      if error.code == EINVAL && windowMicroseconds % 2_000_000 != 0 {
        hint = " (without CAP_SYS_RESOURCE the window must be a multiple of 2 s)"
      }
      throw SystemError(code: error.code, "write PSI trigger \"\(trigger)\" to \(file)\(hint)")
    }
    return descriptor
  }
}
