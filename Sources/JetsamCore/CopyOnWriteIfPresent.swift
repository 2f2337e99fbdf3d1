/// ``CopyOnWrite`` for a value that is mostly absent: no box at all while it is nil. A box holding nil would cost the
/// whole value's size (hundreds of bytes of settings) for every app that has none.
///
/// Reading it copies the value out of its box, so it suits values read rarely (a reload's settings for the next
/// launch); a value read on every event belongs in ``CopyOnWrite``, which lends it.
@propertyWrapper
struct CopyOnWriteIfPresent<Wrapped: Sendable>: Sendable {
  private var box: CopyOnWrite<Wrapped>?

  init(wrappedValue: Wrapped?) { box = wrappedValue.map { CopyOnWrite(wrappedValue: $0) } }

  var wrappedValue: Wrapped? {
    get { box?.wrappedValue }
    set { box = newValue.map { CopyOnWrite(wrappedValue: $0) } }
  }
}
