import Foundation
import JetsamSim

// jetsam-sim: the core at scale with no processes (see SimOptions.usage).

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data("jetsam-sim: \(message)\n".utf8))
  exit(status)
}

let options: SimOptions
do {
  options = try SimOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  fail("\(error.message) (jetsam-sim --help says how)", status: 64)
}
if options.help {
  print(SimOptions.usage)
  exit(0)
}
if options.listModels {
  print(BuiltInModels.sources.keys.sorted().joined(separator: "\n"))
  exit(0)
}

let model: SimModel
do {
  if let builtIn = try BuiltInModels.model(named: options.model) {
    model = builtIn
  } else {
    guard options.model.contains("/") || options.model.hasSuffix(".json5") || options.model.hasSuffix(".json") else {
      fail(
        "--model: \"\(options.model)\" is neither a built-in model (\(BuiltInModels.sources.keys.sorted().joined(separator: ", "))) nor a file path",
        status: 64)
    }
    guard let data = FileManager.default.contents(atPath: options.model) else {
      fail("\(options.model): cannot be read", status: 66)
    }
    model = try SimModelLoader.load(bytes: Array(data), file: options.model)
  }
} catch {
  fail(error.description, status: 65)
}

// A population this machine cannot hold is refused now: the run would otherwise end, perhaps minutes in, in the
// kernel's OOM killer, with no word (README, the jetsam-sim section).
let apps = options.apps ?? model.apps
let need = SimMemoryEstimate(model: model, apps: apps, duration: options.duration)
if let available = AvailableMemory.read(),
  let refusal = need.refusal(apps: apps, available: available.bytes, source: available.source)
{
  fail(refusal, status: 64)
}

// The page's file is created before the run, so that a path that cannot be written fails at once, not after it.
var htmlFile: UnsafeMutablePointer<FILE>?
if let path = options.html {
  htmlFile = fopen(path, "w")
  if htmlFile == nil { fail("--html: cannot create \(path): \(String(cString: strerror(errno)))", status: 73) }
}

let started = ContinuousClock.now
var simulation = Simulation(model: model, apps: apps, duration: options.duration, seed: options.seed)
let report = simulation.run()
let elapsed = ContinuousClock.now - started

if let htmlFile, let path = options.html {
  let page = Array(SimHTMLReport.html(report).utf8)
  let written = page.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, htmlFile) }
  if written != page.count || fclose(htmlFile) != 0 {
    fail("--html: cannot write \(path): \(String(cString: strerror(errno)))", status: 73)
  }
}

if options.json {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
  let data = try encoder.encode(report)
  FileHandle.standardOutput.write(data + Data("\n".utf8))
} else {
  print(report.text, terminator: "")
  let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  print("wall clock: \(String(format: "%.2f", seconds)) s")
}
