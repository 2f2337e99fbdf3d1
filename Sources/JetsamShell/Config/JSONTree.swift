import FoundationEssentials
import JetsamProtocol

/// A generic JSON value, decoded with JSONDecoder (which is where JSON5 support lives).
package enum JSONTree: Decodable, Sendable {
  case object([String: JSONTree])
  case array([JSONTree])
  case string(String)
  case number(Double)
  case integer(Int64)
  case bool(Bool)
  case null

  package init(from decoder: any Decoder) throws {
    if let c = try? decoder.container(keyedBy: AnyCodingKey.self) {
      var object: [String: JSONTree] = [:]
      for key in c.allKeys { object[key.stringValue] = try c.decode(JSONTree.self, forKey: key) }
      self = .object(object)
    } else if var c = try? decoder.unkeyedContainer() {
      var items: [JSONTree] = []
      while !c.isAtEnd { items.append(try c.decode(JSONTree.self)) }
      self = .array(items)
    } else {
      let c = try decoder.singleValueContainer()
      if c.decodeNil() {
        self = .null
      } else if let b = try? c.decode(Bool.self) {
        self = .bool(b)
      } else if let i = try? c.decode(Int64.self) {
        self = .integer(i)
      } else if let d = try? c.decode(Double.self) {
        self = .number(d)
      } else {
        self = .string(try c.decode(String.self))
      }
    }
  }

  /// Every number that is not an integer a decoder can take (a fraction, or beyond Int64), with its path of object
  /// keys (array items are left out: no config list holds integers).
  func nonIntegers(below path: [String] = []) -> [(path: [String], value: Double)] {
    switch self {
    case .object(let object):
      object.keys.sorted().flatMap { object[$0]!.nonIntegers(below: path + [$0]) }
    case .number(let value) where value.isFinite && (value != value.rounded() || abs(value) >= 9e18):
      [(path, value)]
    default: []
    }
  }

  /// This tree with the value at `path` (object keys) replaced.
  func replacing(_ path: [String], with value: JSONTree) -> JSONTree {
    guard let key = path.first else { return value }
    guard case .object(var object) = self, let child = object[key] else { return self }
    object[key] = child.replacing(Array(path.dropFirst()), with: value)
    return .object(object)
  }

  /// The value as JSON text (for JSONDecoder, after profiles are merged). Numbers came through JSONDecoder and are
  /// finite; one that is not is written as null, which the typed decoding then names as a wrong value.
  package var json: [UInt8] {
    var out = JSONBytes()
    append(to: &out)
    return out.bytes
  }

  private func append(to out: inout JSONBytes) {
    switch self {
    case .object(let object):
      out.raw("{")
      for (index, key) in object.keys.sorted().enumerated() {
        if index > 0 { out.raw(",") }
        out.string(key)
        out.raw(":")
        object[key]!.append(to: &out)
      }
      out.raw("}")
    case .array(let items):
      out.raw("[")
      for (index, item) in items.enumerated() {
        if index > 0 { out.raw(",") }
        item.append(to: &out)
      }
      out.raw("]")
    case .string(let text): out.string(text)
    case .number(let number): if !out.number(number) { out.raw("null") }
    case .integer(let integer): out.number(integer)
    case .bool(let bool): out.bool(bool)
    case .null: out.raw("null")
    }
  }
}
