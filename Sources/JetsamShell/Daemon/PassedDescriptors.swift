import Glibc
import JetsamPlatform

/// What systemd passed jetsamd at start: the control socket (jetsamd.socket), the metrics endpoint's socket and, after
/// a restart, the apps' channels from its descriptor store. Anything else passed is closed.
struct PassedDescriptors {
  /// The control socket's listener, if systemd opened it.
  var controlListener: FileDescriptor?
  /// The metrics endpoint's listener, if systemd opened it.
  var metricsListener: FileDescriptor?
  /// The apps' channels kept across a restart, by app.
  var channels: [String: FileDescriptor] = [:]

  /// Takes what systemd passed (each descriptor once: they are not passed again).
  static func take() -> PassedDescriptors {
    var passed = PassedDescriptors()
    for descriptor in ServiceManager.takePassedDescriptors() {
      if passed.metricsListener == nil && descriptor.name == MetricsListener.descriptorName
        && MetricsListener.isListeningSocket(descriptor.fd)
      {
        passed.metricsListener = FileDescriptor(rawValue: descriptor.fd)
      } else if passed.controlListener == nil && ControlServer.isListeningSocket(descriptor.fd) {
        passed.controlListener = FileDescriptor(rawValue: descriptor.fd)
      } else if descriptor.name.hasPrefix(Daemon.channelStorePrefix) {
        passed.channels[String(descriptor.name.dropFirst(Daemon.channelStorePrefix.count))] = FileDescriptor(
          rawValue: descriptor.fd)
      } else {
        Glibc.close(descriptor.fd)
      }
    }
    return passed
  }
}
