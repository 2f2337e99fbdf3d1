// The app protocol's lines come from JetsamWire, shared with the clients. Re-exported so that every file of the
// shell sees AppLine and LineFramer without importing JetsamWire itself.
@_exported import JetsamWire
