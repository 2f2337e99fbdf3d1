import CSystemd
import Glibc

/// On SIGTERM under systemd: is this a stop (end the apps) or the stop half of a restart (leave them running
/// for the next jetsamd to re-adopt)? systemd sends the same SIGTERM for both; the job queued for our unit
/// tells them apart. Asked over systemd's private bus socket, so no D-Bus daemon is needed.
enum StopOrRestart {
  /// The pending job type of the unit this process runs in (`stop`, `restart`, …), or nil when not under
  /// systemd or when it cannot be asked.
  static func pendingJobType() -> String? {
    var unitPointer: UnsafeMutablePointer<CChar>?
    guard sd_pid_get_unit(0, &unitPointer) >= 0, let unitPointer else { return nil }
    defer { free(unitPointer) }

    var bus: OpaquePointer?
    guard sd_bus_new(&bus) >= 0, let bus else { return nil }
    defer { _ = sd_bus_flush_close_unref(bus) }
    guard sd_bus_set_address(bus, "unix:path=/run/systemd/private") >= 0, sd_bus_start(bus) >= 0 else { return nil }

    var unitPath: UnsafeMutablePointer<CChar>?
    guard sd_bus_path_encode("/org/freedesktop/systemd1/unit", unitPointer, &unitPath) >= 0, let unitPath else {
      return nil
    }
    defer { free(unitPath) }

    var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
    defer { sd_bus_error_free(&error) }
    var reply: OpaquePointer?
    guard
      sd_bus_get_property(
        bus, "org.freedesktop.systemd1", unitPath, "org.freedesktop.systemd1.Unit", "Job", &error, &reply, "(uo)")
        >= 0, let reply
    else { return nil }
    defer { sd_bus_message_unref(reply) }
    var jobID: UInt32 = 0
    var jobPath: UnsafePointer<CChar>?
    guard sd_bus_message_enter_container(reply, CChar(UInt8(ascii: "r")), "uo") >= 0,
      sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "u")), &jobID) >= 0,
      sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "o")), &jobPath) >= 0, jobID != 0, let jobPath
    else { return nil }

    var type: UnsafeMutablePointer<CChar>?
    guard
      sd_bus_get_property_string(
        bus, "org.freedesktop.systemd1", jobPath, "org.freedesktop.systemd1.Job", "JobType", &error, &type) >= 0,
      let type
    else { return nil }
    defer { free(type) }
    return String(cString: type)
  }

  /// Whether the SIGTERM jetsamd just got is the first half of a restart.
  static var isRestart: Bool {
    guard getenv("INVOCATION_ID") != nil, let job = pendingJobType() else { return false }
    return job.contains("restart")
  }
}
