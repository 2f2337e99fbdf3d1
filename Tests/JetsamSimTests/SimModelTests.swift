import JetsamSim
import Testing

/// Model files: the built-ins load, and a bad model is refused naming the file, the place and what is wrong.
@Suite struct SimModelTests {
  @Test(arguments: BuiltInModels.sources.keys.sorted())
  func builtInModelsLoad(name: String) throws {
    let model = try #require(try BuiltInModels.model(named: name))
    #expect(model.name == name)
    #expect(!model.kinds.isEmpty)
  }

  static func refusal(_ text: String) -> String? {
    do {
      _ = try SimModelLoader.load(bytes: Array(text.utf8), file: "m.json5")
      return nil
    } catch {
      return error.description
    }
  }

  static let kind = #"kinds: [{ name: "a", memoryMedianMiB: 100 }]"#

  @Test func anUnknownKeyIsNamed() {
    #expect(
      Self.refusal("{ ramMiB: 4096, \(Self.kind), swtichSeconds: 3 }")?.hasPrefix("m.json5: swtichSeconds: unknown key")
        == true)
  }

  @Test func aValueOutOfRangeIsNamedWithItsKeyPath() {
    let text =
      #"{ ramMiB: 4096, kinds: [{ name: "a", memoryMedianMiB: 100 }, { name: "b", memoryMedianMiB: 100, suspendedFraction: 2 }] }"#
    #expect(Self.refusal(text) == "m.json5: kinds[1].suspendedFraction: 2.0 is out of range (0.0 to 1.0)")
  }

  @Test func aMissingValueIsNamed() {
    #expect(Self.refusal("{ \(Self.kind) }") == "m.json5: ramMiB: missing (a number is required)")
  }

  @Test func textThatIsNotJSON5NamesTheLine() {
    let refusal = Self.refusal("{\n  ramMiB: 4096,\n  kinds: [,\n}")
    #expect(refusal?.hasPrefix("m.json5: not valid JSON5 at line 3") == true, "\(refusal ?? "accepted")")
  }

  @Test func aValueOfTheWrongKindIsNamed() {
    #expect(Self.refusal(#"{ ramMiB: "lots", \#(Self.kind) }"#) == "m.json5: ramMiB: expected a number")
    #expect(
      Self.refusal(#"{ ramMiB: 4096, kinds: [{ name: "a", memoryMedianMiB: 100, bandFloor: "idle" }] }"#)
        == #"m.json5: kinds[0].bandFloor: "idle" is not one of mail, audio, critical"#)
    #expect(
      Self.refusal("{ ramMiB: 4096, kinds: [] }") == "m.json5: kinds: is empty (at least one kind of app is needed)")
  }

  @Test func levelsMustRise() {
    #expect(Self.refusal("{ ramMiB: 4096, urgent: 0.3, \(Self.kind) }")?.contains("the levels must rise") == true)
  }
}
