import FoundationEssentials
import JetsamProtocol

/// A generic JSON value: a config or a lab scenario as ``JSON5Parser`` reads it, a control request as
/// ``parse(_:)`` reads it.
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

  /// The value as JSON text; a number that is not finite is written as JSON5 writes it (`Infinity`, `-Infinity`,
  /// `NaN`), so that a JSON5 reader (the lab's jetsamd reading its config) gets the value as it was given.
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
    case .number(let number):
      if !out.number(number) { out.raw(number.isNaN ? "NaN" : number < 0 ? "-Infinity" : "Infinity") }
    case .integer(let integer): out.number(integer)
    case .bool(let bool): out.bool(bool)
    case .null: out.raw("null")
    }
  }
}
