import JetsamCore
import JetsamWire

/// The app protocol's vocabulary (PROTOCOL.md): lines from an app become policy messages, and the policy's
/// events, replies and errors become lines. Pure encoding and decoding; what a message means is the policy's.
package enum AppProtocolCodec {
  /// The descriptor number the channel has in every app (``AppEnvironmentVariable/channelDescriptor``).
  static let channelDescriptor: Int32 = 3
  /// The protocol version jetsamd speaks.
  static let version = "1"

  /// A line the daemon could not take, answered with an `error` line.
  package struct LineError: Error, Equatable {
    package var code: AppProtocolErrorCode
    package var message: String
    package var requestID: Int?
  }

  /// What one line from an app asks for.
  package struct Decoded: Equatable {
    package var message: AppMessage
    /// The `id=` of the line, if it has one (a request to be answered).
    package var requestID: Int?
  }

  /// Decodes one line (without its newline) from an app.
  package static func decode(_ bytes: [UInt8]) throws(LineError) -> Decoded {
    let line: AppLine
    do {
      line = try AppLine(parsing: bytes)
    } catch {
      // Names what is wrong and where: `field 2 "x1=3" at column 13: keys are ASCII letters`.
      throw LineError(code: .badLine, message: error.description)
    }
    let requestID = line.integer(.id)
    do {
      return Decoded(message: try message(from: line, requestID: requestID), requestID: requestID)
    } catch {
      var error = error
      error.requestID = requestID
      throw error
    }
  }

  private static func message(from line: AppLine, requestID: Int?) throws(LineError) -> AppMessage {
    func text(_ field: AppProtocolField) throws(LineError) -> String {
      guard let value = line[field] else {
        throw LineError(code: .missingField, message: "\(line.word) needs \(field.rawValue)=")
      }
      return value
    }
    func integer(_ field: AppProtocolField) throws(LineError) -> Int {
      let value = try text(field)
      guard let number = Int(value) else {
        throw LineError(code: .badLine, message: "\(field.rawValue)=\(value) is not a number")
      }
      return number
    }
    guard let word = AppMessageWord(rawValue: line.word) else {
      throw LineError(code: .unknownWord, message: "unknown message \"\(line.word)\"")
    }
    switch word {
    case .hello: return .hello
    case .ack: return .acknowledge(event: try integer(.event))
    case .beginBackgroundTask:
      var kind = BackgroundTaskKind.finishing
      if let text = line[.kind] {
        guard let parsed = BackgroundTaskKind(rawValue: text) else {
          let kinds = BackgroundTaskKind.allCases.map(\.rawValue).joined(separator: ", ")
          throw LineError(code: .badLine, message: "kind=\(text) is not a task kind (\(kinds))")
        }
        kind = parsed
      }
      return .beginBackgroundTask(requestID: try integer(.id), name: line[.name] ?? "", kind: kind)
    case .endBackgroundTask: return .endBackgroundTask(task: try integer(.task), requestID: requestID)
    case .backgroundTimeRemaining: return .backgroundTimeRemaining(requestID: try integer(.id))
    case .stateSummary: return .stateSummary(try text(.value), requestID: requestID)
    case .stateDigest:
      let value = try text(.value)
      guard let phase = line[.phase].flatMap(DigestPhase.init(rawValue:)) else {
        throw LineError(code: .badLine, message: "stateDigest needs phase=saved, phase=restored or phase=resumed")
      }
      let validFor = try line[.validFor].map { (text) throws(LineError) in try validity(text, phase: phase) }
      return .stateDigest(phase: phase, value: value, validFor: validFor, requestID: requestID)
    case .signpost:
      let phaseText = try text(.phase)
      guard let phase = SignpostPhase(rawValue: phaseText) else {
        throw LineError(code: .badLine, message: "phase=\(phaseText) is not a signpost phase (begin, end, event)")
      }
      return .signpost(name: try text(.name), phase: phase, requestID: requestID)
    }
  }

  /// `validFor=SECONDS` of a saved digest: decimal seconds, more than 0 and at most a year.
  private static func validity(_ text: String, phase: DigestPhase) throws(LineError) -> Duration {
    guard phase == .saved else {
      throw LineError(code: .badLine, message: "validFor= belongs to phase=saved (the state that stays current)")
    }
    guard let validFor = AppLine.duration(seconds: text, limit: AppMessage.maxValidFor), validFor > .zero else {
      throw LineError(
        code: .badLine,
        message:
          "validFor=\(text) is not a number of seconds above 0 and at most \(AppMessage.maxValidFor.components.seconds) (366 days)"
      )
    }
    return validFor
  }

  /// The first line on a new channel.
  static func hello(app: String, launch: Int) -> AppLine {
    AppLine(DaemonMessageWord.hello, [(.version, version), (.app, app), (.launch, String(launch))])
  }

  /// A lifecycle event.
  package static func event(_ event: AppEvent) -> AppLine {
    var fields: [(AppProtocolField, String)] = [(.id, String(event.id)), (.name, event.kind.rawValue)]
    switch event.kind {
    case .didFinishLaunching:
      if let previous = event.previousExit {
        fields.append((.reason, LaunchReasonName.afterExit.rawValue))
        fields += [
          (.previousReason, previous.reason.rawValue), (.previousState, previous.state.rawValue),
          (.previousTime, previous.time),
        ]
        if let summary = previous.summary { fields.append((.summary, summary)) }
      } else {
        fields.append((.reason, LaunchReasonName.fresh.rawValue))
      }
      let destination: LaunchDestination = event.launchesToForeground == false ? .background : .foreground
      fields.append((.state, destination.rawValue))
    case .memoryWarning:
      // A warning is sent only at warning or above; one without a level reads as a warning.
      fields.append((.level, (event.level?.memoryWarningLevel ?? .warning).rawValue))
    case .backgroundTaskWillExpire:
      fields.append((.task, String(event.task ?? 0)))
      fields.append((.taskName, event.taskName ?? ""))
    default: break
    }
    if let backgroundFor = event.backgroundFor { fields.append((.backgroundFor, AppLine.seconds(backgroundFor))) }
    if let suspendedFor = event.suspendedFor { fields.append((.suspendedFor, AppLine.seconds(suspendedFor))) }
    return AppLine(.event, fields)
  }

  /// The answer to request `requestID`.
  package static func reply(requestID: Int, _ reply: AppReply = .done) -> AppLine {
    reply.line(requestID: requestID)
  }

  /// A message of the app's that could not be taken.
  package static func error(code: AppProtocolErrorCode, message: String, requestID: Int?) -> AppLine {
    var fields: [(AppProtocolField, String)] = [(.code, code.rawValue), (.message, message)]
    if let requestID { fields.append((.id, String(requestID))) }
    return AppLine(.error, fields)
  }

  /// An over-long line.
  static var tooLong: AppLine {
    error(code: .tooLong, message: "lines are at most \(AppLine.maxBytes) bytes", requestID: nil)
  }

  /// `JETSAM_*` variables for a launch: the channel, the counter, and why it is starting.
  static func launchEnvironment(app: String, launch: Int, previousExit: PreviousExit?) -> [String: String] {
    let reason: LaunchReasonName = previousExit == nil ? .fresh : .afterExit
    var environment: [AppEnvironmentVariable: String] = [
      .channelDescriptor: String(channelDescriptor), .protocolVersion: version, .app: app, .launch: String(launch),
      .launchReason: reason.rawValue,
    ]
    if let previousExit {
      let fields = previousExitFields(previousExit).map { ($0.0.rawValue, $0.1) }
      environment[.previousExit] = AppLine("", fields).encoded.trimmingSpaces()
      if let summary = previousExit.summary { environment[.stateSummary] = AppLine.percentEncode(summary) }
    }
    return Dictionary(uniqueKeysWithValues: environment.map { ($0.key.rawValue, $0.value) })
  }

  private static func previousExitFields(_ previous: PreviousExit) -> [(AppProtocolField, String)] {
    [(.reason, previous.reason.rawValue), (.state, previous.state.rawValue), (.time, previous.time)]
  }
}

extension String {
  fileprivate func trimmingSpaces() -> String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
