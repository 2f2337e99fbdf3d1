import Foundation
import JetsamClient

// jetsam-demo-app: a jetsamd app with real state to save and restore, and flags to misbehave on purpose.

let options: DemoOptions
do {
  options = try DemoOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
  FileHandle.standardError.write(Data("jetsam-demo-app: \(error.message)\n\n\(DemoOptions.usage)\n".utf8))
  exit(64)
}
if options.help {
  print(DemoOptions.usage)
  exit(0)
}

let application: JetsamApplication
do {
  application = try JetsamApplication.connect()
} catch {
  FileHandle.standardError.write(Data("jetsam-demo-app: \(error)\n".utf8))
  exit(69)  // EX_UNAVAILABLE
}
application.run(delegate: DemoApp(options: options))
