// Every file of the integration tests sees the test kit (a real jetsamd, waiting, /proc, cgroups) without
// importing it.
@_exported import JetsamTestKit
