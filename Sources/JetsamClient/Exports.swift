// The protocol's value types the client's API takes come from JetsamWire, shared with jetsamd. Re-exported so
// that an app importing JetsamClient can name them without importing JetsamWire itself.
@_exported import enum JetsamWire.SignpostPhase
@_exported import enum JetsamWire.StateDigestPhase
