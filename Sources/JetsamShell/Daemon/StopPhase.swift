/// Where jetsamd's stop is (SIGTERM, SIGINT, the parent's end under `--exit-with-parent`).
enum StopPhase {
  /// Running: no stop asked for.
  case running
  /// Terminating the apps and waiting for their records.
  case stopping
  /// Every app is gone: the cgroups, the device and the state file are being settled before the exit.
  case finishing
}
