// Every file of the shell sees the platform layer (errors, file descriptors, /proc) and the core's `Signal`
// without importing them one by one; so do the shell's clients (jetsamd, the shell's tests).
@_exported import JetsamPlatform

@_exported import struct JetsamCore.Signal
