// The kit's users (the test targets, the bench) get the platform layer with it: errors, file descriptors, /proc.
@_exported import JetsamPlatform
