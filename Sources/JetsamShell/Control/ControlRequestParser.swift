import FoundationEssentials
import JetsamConfig
import JetsamCore
import JetsamProtocol

/// Turns one request line into a ``ControlRequest`` or an error that names what is wrong and where.
package enum ControlRequestParser {
  package static func parse(_ bytes: [UInt8]) -> Result<ControlRequest, ControlError> {
    let object: [String: JSONTree]
    do throws(JSONSyntaxError) {
      guard case .object(let parsed) = try JSONTree.parse(bytes) else {
        let preview = String(decoding: bytes.prefix(40), as: UTF8.self)
        return .failure(
          ControlError(.badRequest, "not a JSON object: \(preview.debugDescription)\(bytes.count > 40 ? "…" : "")"))
      }
      object = parsed
    } catch {
      return .failure(ControlError(.badRequest, "not a JSON object: \(error)"))
    }
    guard case .integer(let version)? = object["v"] else {
      return .failure(
        ControlError(
          .badRequest, "v: missing or not an integer (this daemon speaks version \(ControlProtocol.version))"))
    }
    guard version == ControlProtocol.version else {
      return .failure(
        ControlError(
          .unsupportedVersion, "v: version \(version) is not supported (this daemon speaks \(ControlProtocol.version))")
      )
    }
    guard case .string(let verb)? = object["verb"] else {
      return .failure(ControlError(.badRequest, "verb: missing or not a string"))
    }
    guard ControlVerb(rawValue: verb) != nil else {
      let known = ControlVerb.allCases.map(\.rawValue).joined(separator: ", ")
      return .failure(ControlError(.badRequest, "verb: unknown verb \"\(verb)\" (known: \(known))"))
    }
    let known = Set(ControlRequest.CodingKeys.allCases.map(\.rawValue))
    if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
      return .failure(ControlError(.badRequest, "\(unknown): unknown field"))
    }
    do {
      return .success(try JSONDecoder().decode(ControlRequest.self, from: Data(bytes)))
    } catch let error as DecodingError {
      let problem = ConfigLoader.configError(error, file: "request")
      return .failure(
        ControlError(.badRequest, "\(problem.keyPath.isEmpty ? "request" : problem.keyPath): \(problem.reason)"))
    } catch {
      return .failure(ControlError(.badRequest, "\(error)"))
    }
  }
}
