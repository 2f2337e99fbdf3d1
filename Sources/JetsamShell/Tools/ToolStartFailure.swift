/// Why a helper program could not be started or watched (``ToolStarter``): a sentence naming the program.
struct ToolStartFailure: Error, Sendable {
  var message: String

  init(_ message: String) { self.message = message }
}
