import JetsamWire
import Testing

@testable import JetsamClient

/// The client's lookups on the daemon's lines; the lines themselves are tested in JetsamWireTests.
@Suite struct AppLineLookupTests {
  @Test func readsAnIntegerField() throws {
    let line = try AppLine(parsing: "reply id=12 seconds=29.950")
    #expect(line.integer("id") == 12)
    #expect(line.integer("seconds") == nil)
    #expect(line.integer("missing") == nil)
  }

  @Test func aRepeatedKeyKeepsItsFirstValueInTheDictionary() throws {
    let line = try AppLine(parsing: "event id=5 name=backgroundTaskWillExpire task=1 name=upload")
    #expect(line.fieldDictionary == ["id": "5", "name": "backgroundTaskWillExpire", "task": "1"])
  }
}
