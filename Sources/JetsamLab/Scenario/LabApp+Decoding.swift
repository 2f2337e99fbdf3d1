import Foundation
import JetsamConfig
import JetsamCore
import JetsamProtocol

/// An app as a scenario describes it under `apps` (LABS.md, *Scenario files*).
extension LabApp: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case command, env, memoryLimit, cpuLimit, band, acknowledgements, ready, digest, digestValidFor, on, exercise
  }

  /// The app written at `decoder`'s key path (`apps.notes`).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(knownKeys: CodingKeys.self)
    guard (try? c.nestedUnkeyedContainer(forKey: .command))?.isAtEnd == false else {
      throw decoder.failure("command: missing or not a list of words")
    }
    self.init(command: try c.decode([String].self, forKey: .command))
    environment =
      try c.readIfWritten(.env) { env in
        try env.expecting("expected an object of variables") { try [String: String](from: env) }
      } ?? [:]
    memoryLimit = try c.readIfWritten(.memoryLimit) { try $0.size() }
    cpuLimit = try c.readIfWritten(.cpuLimit) { limit in
      let percent = try Double(from: limit)
      guard percent >= 1, percent <= 100_000 else {
        throw limit.failure("expected a percentage of a core, 1 to 100000")
      }
      return percent
    }
    band = try c.readIfWritten(.band) { band in
      guard let parsed = Band(name: try String(from: band)) else {
        throw band.failure("not a band (idle, background, mail, foreground, audio, critical)")
      }
      return parsed
    }
    acknowledgements = try c.readIfWritten(.acknowledgements) { mode in
      guard let parsed = AcknowledgementMode(rawValue: try String(from: mode)) else {
        throw mode.failure("not a mode (auto, always, never)")
      }
      return parsed
    }
    commands = try Self.programCommands(c)
    exercise = try c.readIfWritten(.exercise) { try $0.shellLine()[2] }
  }

  /// The commands that speak for the program, as `jetsamctl launch` takes them (`ready`, `digest`,
  /// `digestValidFor`, `on`: PROTOCOL.md); each command one shell line.
  private static func programCommands(_ c: KeyedDecodingContainer<CodingKeys>) throws -> ProgramCommands {
    var commands = ProgramCommands()
    commands.ready = try c.readIfWritten(.ready) { try $0.shellLine() }
    commands.digest = try c.readIfWritten(.digest) { digest in
      // The restored digest is taken once ready says the relaunched program is up: without it there is none.
      guard commands.ready != nil else { throw digest.failure("needs ready (the restored digest waits for it)") }
      return try digest.shellLine()
    }
    commands.digestValidFor = try c.readIfWritten(.digestValidFor) { validity in
      guard commands.digest != nil else { throw validity.failure("needs digest (the state it says is fresh)") }
      let seconds = try validity.duration().seconds
      guard seconds > 0 else { throw validity.failure("expected a duration above 0") }
      return seconds
    }
    commands.hooks = try c.readIfWritten(.on) { on in
      let expected = "expected an object of lifecycle event → command, e.g. { didEnterBackground: \"…\" }"
      let events = try on.namedValues(expected)
      guard !events.isEmpty else { throw on.failure(expected) }
      var hooks: [String: [String]] = [:]
      for (event, command) in events {
        guard AppEventKind(rawValue: event) != nil else {
          let known = AppEventKind.allCases.map(\.rawValue).joined(separator: ", ")
          throw command.failure("not a lifecycle event (\(known))")
        }
        hooks[event] = try command.shellLine()
      }
      return hooks
    }
    return commands
  }
}
