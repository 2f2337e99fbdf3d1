import Foundation
import JetsamWire
import Testing

/// The C test app (`Sources/jetsam-testapp`) spells the protocol in C: run through a socketpair, every line it
/// writes uses words, keys and values of the table's vocabulary, and it understands the daemon's lines built from it;
/// the environment variables it and the crash reporter read are the table's.
@Suite struct TestAppVocabularyTests {
  @Test func speakSaysHelloAndAcknowledgesEveryEvent() throws {
    let app = try TestAppProcess(["speak"])
    let vocabulary = try WireVocabulary.load()
    app.send(AppLine(DaemonMessageWord.hello, [(.version, "1"), (.app, "testapp"), (.launch, "1")]))
    for (index, event) in vocabulary.events.enumerated() {
      app.send(AppLine(.event, [(.id, String(index + 1)), (.name, event)]))
    }
    let hello = try #require(try app.readLine())
    try expectInVocabulary(hello, vocabulary)
    #expect(hello.word == AppMessageWord.hello.rawValue && hello[.version] == "1")
    // It acknowledges every event, in order, needed or not.
    for id in 1...vocabulary.events.count {
      let ack = try #require(try app.readLine(), "no ack of event \(id)")
      try expectInVocabulary(ack, vocabulary)
      #expect(ack.word == AppMessageWord.ack.rawValue && ack.integer(.event) == id)
    }
  }

  @Test func spinOpensAProcessingTaskOnTheReply() throws {
    let app = try TestAppProcess(["spin", "--processing-task", "upload"])
    let vocabulary = try WireVocabulary.load()
    let request = try #require(try app.readLine())
    try expectInVocabulary(request, vocabulary)
    #expect(request.word == AppMessageWord.beginBackgroundTask.rawValue)
    #expect(request[.name] == "upload" && request[.kind] == "processing")
    #expect(vocabulary.values.backgroundTaskKind.contains(request[.kind] ?? ""), "\(request.encoded)")
    let id = try #require(request.integer(.id))
    // An event before the reply is acknowledged on the way.
    app.send(AppLine(.event, [(.id, "1"), (.name, AppEventName.didFinishLaunching.rawValue)]))
    let ack = try #require(try app.readLine())
    try expectInVocabulary(ack, vocabulary)
    #expect(ack.word == AppMessageWord.ack.rawValue && ack.integer(.event) == 1)
    app.send(AppReply.taskBegun(task: 1).line(requestID: id))
    #expect(app.standardOutput(bytes: 10) == "task open\n")
  }

  @Test func spinGivesUpOnAnError() throws {
    let app = try TestAppProcess(["spin", "--processing-task", "upload"])
    let request = try #require(try app.readLine())
    let id = try #require(request.integer(.id))
    app.send(
      AppLine(
        .error,
        [(.code, AppProtocolErrorCode.tooManyTasks.rawValue), (.message, "too many"), (.id, String(id))]))
    // EX_SOFTWARE: jetsamd refused the task.
    #expect(app.exitStatus() == 70)
  }

  @Test func theVariablesTheCProgramsReadAreTheTables() throws {
    let vocabulary = try WireVocabulary.load()
    let sources = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appending(path: "Sources")
    // The test app reads the channel and the crash socket; the crash reporter, preloaded into apps, the crash socket.
    let expected = [
      "jetsam-testapp/main.c": ["JETSAM_CRASH_FD", "JETSAM_FD"],
      "JetsamCrashHandler/crash_handler.c": ["JETSAM_CRASH_FD"],
    ]
    for (file, names) in expected.sorted(by: { $0.key < $1.key }) {
      let text = try String(contentsOf: sources.appending(path: file), encoding: .utf8)
      let read = Set(Self.variablesNamed(in: text).filter { $0.hasPrefix("JETSAM_") })
      #expect(read.subtracting(vocabulary.environment.app).sorted() == [], "\(file) reads a variable not in the table")
      // What it reads at least, so that a scan that finds nothing fails.
      #expect(read.isSuperset(of: names), "\(file) reads \(read.sorted())")
    }
  }

  /// The names in `getenv("…")` and `setenv("…", …)` calls.
  static func variablesNamed(in source: String) -> [String] {
    var names: [String] = []
    for call in ["getenv(\"", "setenv(\""] {
      var rest = source[...]
      while let start = rest.range(of: call) {
        rest = rest[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { break }
        names.append(String(rest[..<end]))
      }
    }
    return names
  }

  private func expectInVocabulary(
    _ line: AppLine, _ vocabulary: WireVocabulary, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    #expect(vocabulary.appToDaemon.words.contains(line.word), "\(line.encoded)", sourceLocation: sourceLocation)
    let unknown = line.fields.map(\.key).filter { !vocabulary.appToDaemon.fields.contains($0) }
    #expect(unknown == [], "\(line.encoded)", sourceLocation: sourceLocation)
  }
}
