// The kit's users (the test targets, the bench) get the platform layer with it: errors, file descriptors, /proc;
// and the daemon process and waiting helpers it shares with the lab.
@_exported import JetsamDaemonProcess
@_exported import JetsamPlatform
