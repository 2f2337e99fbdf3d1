import JetsamWire

// The protocol's value types the client's API takes come from JetsamWire, shared with jetsamd. Named here too, so
// that an app importing JetsamClient can name them without importing JetsamWire itself.

/// Where a signpost falls: `begin`, `end` or `event` (a single point).
public typealias SignpostPhase = JetsamWire.SignpostPhase
/// Which side of a save/restore round trip a state digest describes.
public typealias StateDigestPhase = JetsamWire.StateDigestPhase
/// What a background task is for: `finishing` (the default) or `processing`.
public typealias BackgroundTaskKind = JetsamWire.BackgroundTaskKind
/// The levels of `memoryWarning` the protocol defines (``MemoryWarningLevel`` wraps them, and any newer one).
public typealias MemoryWarningLevelName = JetsamWire.MemoryWarningLevelName
