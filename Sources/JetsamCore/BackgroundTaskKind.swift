import JetsamWire

/// What a background task is for: the protocol's own (``JetsamWire/BackgroundTaskKind``), named here too so that the
/// policy and its users need not import JetsamWire to name it.
public typealias BackgroundTaskKind = JetsamWire.BackgroundTaskKind
