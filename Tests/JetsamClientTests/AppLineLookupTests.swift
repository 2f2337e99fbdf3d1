import JetsamWire
import Testing

@testable import JetsamClient

/// The client's lookups on the daemon's lines; the lines themselves, and their typed lookups, are tested in
/// JetsamWireTests.
@Suite struct AppLineLookupTests {
  @Test func aRepeatedKeyKeepsItsFirstValueInTheDictionary() throws {
    let line = try AppLine(parsing: "event id=5 name=backgroundTaskWillExpire task=1 name=upload")
    #expect(line.fieldDictionary == ["id": "5", "name": "backgroundTaskWillExpire", "task": "1"])
  }
}
