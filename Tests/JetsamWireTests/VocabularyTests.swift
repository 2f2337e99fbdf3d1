import JetsamWire
import Testing

/// The table's `vocabulary` lists exactly JetsamWire's words, keys, events, error codes, values and environment
/// variables: a word added to an enum and not to the table (which the Python client's and the C test app's tests
/// read) fails here, and so does one listed and not in the enums.
@Suite struct VocabularyTests {
  @Test func appWordsAreTheTables() throws {
    try expectSame(WireVocabulary.load().appToDaemon.words, AppMessageWord.allCases.map(\.rawValue))
  }

  @Test func daemonWordsAreTheTables() throws {
    try expectSame(WireVocabulary.load().daemonToApp.words, DaemonMessageWord.allCases.map(\.rawValue))
  }

  @Test func fieldsAppsWriteAreTheTables() throws {
    let fields = AppProtocolField.allCases.filter(\.isSentByApps).map(\.rawValue)
    try expectSame(WireVocabulary.load().appToDaemon.fields, fields)
  }

  @Test func fieldsTheDaemonWritesAreTheTables() throws {
    let fields = AppProtocolField.allCases.filter(\.isSentByDaemon).map(\.rawValue)
    try expectSame(WireVocabulary.load().daemonToApp.fields, fields)
  }

  @Test func everyFieldIsWrittenBySomeone() {
    #expect(AppProtocolField.allCases.filter { !$0.isSentByApps && !$0.isSentByDaemon } == [])
  }

  @Test func eventsAreTheTables() throws {
    try expectSame(WireVocabulary.load().events, AppEventName.allCases.map(\.rawValue))
  }

  @Test func errorCodesAreTheTables() throws {
    try expectSame(WireVocabulary.load().errorCodes, AppProtocolErrorCode.allCases.map(\.rawValue))
  }

  @Test func valuesAreTheTables() throws {
    let values = try WireVocabulary.load().values
    expectSame(values.launchReason, LaunchReasonName.allCases.map(\.rawValue))
    expectSame(values.launchState, LaunchDestination.allCases.map(\.rawValue))
    expectSame(values.digestPhase, StateDigestPhase.allCases.map(\.rawValue))
    expectSame(values.signpostPhase, SignpostPhase.allCases.map(\.rawValue))
    expectSame(values.memoryWarningLevel, MemoryWarningLevelName.allCases.map(\.rawValue))
    expectSame(values.backgroundTaskKind, BackgroundTaskKind.allCases.map(\.rawValue))
  }

  @Test func environmentVariablesAreTheTables() throws {
    let environment = try WireVocabulary.load().environment
    expectSame(environment.app, AppEnvironmentVariable.allCases.filter(\.isSetForApps).map(\.rawValue))
    expectSame(environment.hook, AppEnvironmentVariable.allCases.filter(\.isSetForHooks).map(\.rawValue))
  }

  @Test func everyVariableIsSetForSomeone() {
    #expect(AppEnvironmentVariable.allCases.filter { !$0.isSetForApps && !$0.isSetForHooks } == [])
  }

  @Test func variablesAreJetsamsOwnPortableNames() {
    // Upper-case letters, digits and underscores after JETSAM_: a name any shell and C's getenv take as it is.
    for variable in AppEnvironmentVariable.allCases {
      let rest = variable.rawValue.utf8.dropFirst("JETSAM_".utf8.count)
      #expect(variable.rawValue.hasPrefix("JETSAM_") && !rest.isEmpty, "\(variable.rawValue)")
      #expect(rest.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
    }
  }

  @Test func wordsAndKeysAreWhatALineTakes() throws {
    let vocabulary = try WireVocabulary.load()
    let names = [vocabulary.appToDaemon, vocabulary.daemonToApp].flatMap { $0.words + $0.fields }
    // A word or key that breaks the rule of *Lines* would make lines no reader accepts.
    for name in names {
      #expect(throws: Never.self, "\(name)") { try AppLine(parsing: "\(name) \(name)=1") }
    }
  }

  /// Both lists hold the same names, each once; what one lacks is named.
  private func expectSame(
    _ table: [String], _ enumeration: [String], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(Set(table).count == table.count, "listed twice in the table", sourceLocation: sourceLocation)
    #expect(
      Set(enumeration).subtracting(table).sorted() == [], "missing from the table", sourceLocation: sourceLocation)
    #expect(Set(table).subtracting(enumeration).sorted() == [], "not in JetsamWire", sourceLocation: sourceLocation)
  }
}
