import JetsamProtocol

/// One device of a run as the reports draw it: across hosts each host's, else the one daemon's. Its memory samples
/// and pressure changes are its own, its memory is drawn against its own RAM, and its apps' lanes go under it.
struct DeviceTrack {
  /// The host; nil for a lab on one daemon.
  var host: String?
  var ramBytes: Int64
  /// Its `pressure`, `memory` and `device` changes, in time order.
  var changes: [LiveChange]

  /// The kinds of change that are a device's rather than an app's.
  static let kinds: Set<LiveChange.Kind> = [.pressure, .memory, .device]

  /// Its apps of `apps` (all of them on one daemon; across hosts the `HOST/…` ones), in their order.
  func apps(of apps: [String]) -> [String] {
    guard let host else { return apps }
    return apps.filter { $0.hasPrefix(host + "/") }
  }
}

extension LabRun {
  /// The run's devices: the one daemon's, or across hosts each host's in the order the hosts were given.
  var devices: [DeviceTrack] {
    guard let hosts else {
      return [
        DeviceTrack(host: nil, ramBytes: ramBytes, changes: timeline.filter { DeviceTrack.kinds.contains($0.kind) })
      ]
    }
    let tagged = zip(timeline, changeHosts ?? []).filter { DeviceTrack.kinds.contains($0.0.kind) }
    return hosts.map { host in
      DeviceTrack(
        host: host.name, ramBytes: host.ramBytes ?? 0, changes: tagged.filter { $0.1 == host.name }.map(\.0))
    }
  }
}
