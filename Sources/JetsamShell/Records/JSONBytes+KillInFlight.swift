import FoundationEssentials
import JetsamCore
import JetsamProtocol
import JetsamSpawning

extension JSONBytes {
  /// A kill's decision as `JSONEncoder.stable` writes it (keys sorted, absent snapshot left out), fast enough for the
  /// kill path: a jetsam kill's snapshot names every running app (1,000 entries take `JSONEncoder` ~10 ms; by hand
  /// well under one), and it is written before the SIGKILL goes out (``KillJournal``) and in every state save while
  /// the victim dies. Only a kill's kind other than jetsam's goes through `JSONEncoder` (a few fields, and those
  /// kills are not the ones a pressure spike waits for).
  mutating func killInFlight(_ decision: KillInFlight) throws {
    raw("{")
    key("availableBytes", first: true)
    number(decision.availableBytes)
    key("kill")
    if decision.kill == .jetsam {
      raw("{\"kind\":\"jetsam\"}")
    } else {
      raw(try JSONEncoder.stable.encode(decision.kill))
    }
    key("level")
    string(decision.level.name)
    if let snapshot = decision.snapshot {
      key("snapshot")
      raw("[")
      for (index, entry) in snapshot.enumerated() {
        if index > 0 { raw(",") }
        snapshotEntry(entry)
      }
      raw("]")
    }
    raw("}")
  }

  /// One app of a jetsam snapshot, as ``SnapshotEntry``'s synthesized `encode(to:)` writes it.
  private mutating func snapshotEntry(_ entry: SnapshotEntry) {
    raw("{")
    key("band", first: true)
    string(entry.band.description)
    key("memoryBytes")
    number(entry.memoryBytes)
    key("name")
    string(entry.name)
    key("pid")
    number(entry.pid)
    key("secondsInBand")
    // A time in a band is finite; were it not, the entry must still decode.
    if !number(entry.secondsInBand) { raw("0") }
    key("state")
    string(entry.state.rawValue)
    raw("}")
  }
}
