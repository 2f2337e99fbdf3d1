/// A value kept behind one reference, copied only when it is changed while shared: copying the holder costs one
/// retain, not one per reference inside the value.
///
/// ``TrackedApp`` keeps its settings and its process this way. The policy reads apps by value from its dictionary
/// (every read of `lifecycle.apps[name]` is a copy) and copies the whole dictionary for a batch of requests, which is
/// all or nothing; without the box, each copy retained every string, array and dictionary of every app.
@propertyWrapper
struct CopyOnWrite<Value: Sendable>: Sendable {
  /// Changed only while uniquely referenced (see ``wrappedValue``), so sharing it is as safe as sharing the value.
  private final class Box: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
  }

  private var box: Box

  init(wrappedValue: Value) { box = Box(wrappedValue) }

  var wrappedValue: Value {
    // Lent, not copied: reading one field of the value (`app.process?.graceDeadline`, for every app after every
    // run) would otherwise copy the whole value out of the box, and retain each reference inside it.
    _read { yield box.value }
    set {
      if isKnownUniquelyReferenced(&box) { box.value = newValue } else { box = Box(newValue) }
    }
    _modify {
      if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
      yield &box.value
    }
  }
}
