import FoundationEssentials
import JetsamConfig
import JetsamCore
import JetsamProtocol
import JetsamSpawning
import JetsamValues

/// Encodes ``DaemonState`` as the JSON that `JSONDecoder` reads back, fast enough to run on the loop after every
/// batch: each app's settings are encoded once and reused while it is unchanged, and the few fields that do change
/// (state, band, instants, digests) are written directly.
///
/// Why not `JSONEncoder` for all of it: it spent ~20 µs per app (generic metadata, dynamic casts), so with 1,000 apps
/// one save held the loop for ~20 ms, and one save per app exit made a shutdown quadratic. The output has the same
/// keys and shape (sorted keys); `StateFileEncoderTests` decodes it with `JSONDecoder` to keep the two in step.
final class StateFileEncoder {
  /// An app's last settings and their JSON text, behind one reference: inline, a dictionary entry would hold the
  /// whole settings value in each of its buckets (about 800 KB for 1,000 apps, where this costs half).
  private final class Encoded {
    let settings: AppSettings
    let text: [UInt8]
    init(_ settings: AppSettings, _ text: [UInt8]) {
      self.settings = settings
      self.text = text
    }
  }

  /// Each app's last settings and their JSON text.
  private var settings: [String: Encoded] = [:]
  private let recordEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return encoder
  }()

  /// The file's bytes.
  func encode(_ state: DaemonState) throws -> [UInt8] {
    var out = JSONBytes(capacity: 64 * 1024)
    out.raw("{\"apps\":[")
    var present: Set<String> = []
    for (index, app) in state.apps.enumerated() {
      if index > 0 { out.raw(",") }
      present.insert(app.adopted.name)
      out.raw("{\"adopted\":{")
      try out.adopted(app.adopted)
      out.raw("}")
      if let settings = app.settings {
        out.raw(",\"settings\":")
        out.raw(try settingsText(app.adopted.name, settings))
      }
      out.raw(",\"startTime\":")
      out.number(app.startTime)
      out.raw("}")
    }
    out.raw("],\"bootID\":")
    out.string(state.bootID)
    if state.deviceCharging == true { out.raw(",\"deviceCharging\":true") }
    if let records = state.pendingRecords {
      // Few (the records of the last milliseconds' exits, or of a full disk's wait): JSONEncoder's cost is fine.
      out.raw(",\"pendingRecords\":")
      out.raw([UInt8](try recordEncoder.encode(records)))
    }
    out.raw(",\"version\":")
    out.number(state.version)
    out.raw("}")
    // Forget the apps that are gone, so the cache never outgrows the running apps.
    if settings.count > present.count { settings = settings.filter { present.contains($0.key) } }
    return out.bytes
  }

  private func settingsText(_ name: String, _ app: AppSettings) throws -> [UInt8] {
    if let cached = settings[name], cached.settings == app { return cached.text }
    let text = [UInt8](try recordEncoder.encode(app))
    settings[name] = Encoded(app, text)
    return text
  }
}

extension JSONBytes {
  fileprivate mutating func instant(_ value: Instant) {
    raw("{\"nanoseconds\":")
    number(value.nanoseconds)
    raw("}")
  }

  /// ``AppStatus`` as its `encode(to:)` writes it, keys sorted: absent optionals and defaults are left out.
  fileprivate mutating func adopted(_ app: AppStatus) throws {
    if let awaySince = app.awaySince {
      key("awaySince", first: true)
      instant(awaySince)
      key("bandEnteredAt")
    } else {
      key("bandEnteredAt", first: true)
    }
    instant(app.bandEnteredAt)
    if let floor = app.bandFloor {
      key("bandFloor")
      string(floor.description)
    }
    if app.continuedByOthers != 0 {
      key("continuedByOthers")
      number(app.continuedByOthers)
    }
    if let kill = app.killInFlight {
      // Only between a kill and its exit, but a jetsam kill's snapshot names every running app: by hand.
      key("killInFlight")
      try killInFlight(kill)
    }
    key("launch")
    number(app.launch)
    if let metrics = app.launchMetrics {
      key("launchMetrics")
      launchMetrics(metrics)
    }
    key("name")
    string(app.name)
    if let pid = app.pid {
      key("pid")
      number(pid)
    }
    optionalString("previousDigest", app.previousDigest)
    if let deadline = app.restorationDeadline {
      key("restorationDeadline")
      instant(deadline)
    }
    if app.restorationLost {
      key("restorationLost")
      bool(true)
    }
    optionalString("restoredDigest", app.restoredDigest)
    if let resumption = app.resumption {
      // Rare (an app that reported a resumed digest): JSONEncoder's speed does not matter here.
      key("resumption")
      raw(try JSONEncoder.stable.encode(resumption))
    }
    if let savedAt = app.savedAt {
      key("savedAt")
      instant(savedAt)
    }
    optionalString("savedDigest", app.savedDigest)
    if let validUntil = app.savedValidUntil {
      key("savedValidUntil")
      instant(validUntil)
    }
    if let spawnedAt = app.spawnedAt {
      key("spawnedAt")
      instant(spawnedAt)
    }
    key("state")
    string(app.state.rawValue)
    key("stateEnteredAt")
    instant(app.stateEnteredAt)
    optionalString("summary", app.summary)
  }
}
