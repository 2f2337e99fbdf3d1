import JetsamValues
import Testing

@Suite struct DictionaryReleaseTests {
  @Test("the storage stays while anything is left, and is given back with the last value")
  func storageGoesWithTheLastValue() {
    var apps: [String: Int] = [:]
    for number in 0..<1_000 { apps["app\(number)"] = number }
    for number in 1..<1_000 { apps.removeValueReleasingStorage(forKey: "app\(number)") }
    #expect(apps == ["app0": 0])
    #expect(apps.capacity >= 1_000, "one value left: the room stays (no rehash per removal)")
    apps.removeValueReleasingStorage(forKey: "app0")
    #expect(apps.isEmpty && apps.capacity == 0)
    apps.removeValueReleasingStorage(forKey: "absent")
    #expect(apps.isEmpty)
  }
}
