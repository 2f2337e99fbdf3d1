import JetsamWire

// The protocol's value types the client's API takes come from JetsamWire, shared with jetsamd. Named here too, so
// that an app importing JetsamClient can name them without importing JetsamWire itself.
public typealias SignpostPhase = JetsamWire.SignpostPhase
public typealias StateDigestPhase = JetsamWire.StateDigestPhase
