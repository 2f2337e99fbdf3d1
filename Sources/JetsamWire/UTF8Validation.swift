/// The offset of the first byte of `bytes` that does not belong to a valid UTF-8 sequence; nil when all of it is
/// valid. Shared by the app protocol's value decoding and the config loader, which both name the byte at fault.
public func firstInvalidUTF8Offset(in bytes: some Sequence<UInt8>) -> Int? {
  var parser = Unicode.UTF8.ForwardParser()
  var iterator = bytes.makeIterator()
  var offset = 0
  while true {
    switch parser.parseScalar(from: &iterator) {
    case .valid(let scalar): offset += scalar.count
    case .error: return offset
    case .emptyInput: return nil
    }
  }
}
