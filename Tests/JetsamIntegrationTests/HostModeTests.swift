import Foundation
import Glibc
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// `ram: "host"`: the device is the whole machine and available memory is MemAvailable.
@Suite(
  "Host mode", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"), .timeLimit(.minutes(1)),
  .offThePool)
struct HostModeTests {
  @Test("pressure reports the machine's RAM and MemAvailable")
  func hostMode() throws {
    let daemon = try DaemonHarness(config: #"{ device: { ram: "host" } }"#)
    defer { daemon.stop() }
    let pressure = try daemon.ctlJSON(PressureInfo.self, ["pressure"])
    let meminfo = try String(contentsOfFile: "/proc/meminfo", encoding: .utf8)
    func field(_ name: String) -> Int64 {
      let line = meminfo.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
      return (Int64(line.split(separator: " ")[1]) ?? 0) * 1024
    }
    #expect(pressure.mode == "host")
    #expect(pressure.ramBytes == field("MemTotal"))
    let available = Double(field("MemAvailable"))
    #expect(abs(Double(pressure.availableBytes) - available) < available * 0.1)
    // Thresholds in percent resolve against the machine's RAM.
    #expect(pressure.thresholds.warning.enter == Int64(Double(field("MemTotal")) * 0.25))
  }
}
