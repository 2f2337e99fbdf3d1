import Foundation
import JetsamCore
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import JetsamValues
import JetsamWire
import Testing

@testable import JetsamConfig
@testable import JetsamShell

@Suite("Config files", .offThePool)
struct ConfigTests {
  struct BadConfig: Sendable, CustomStringConvertible {
    var text: String
    var message: String
    var description: String { message }
  }

  static let badConfigs: [BadConfig] = [
    // A hook whose program cannot be found fails the load (and a reload, which keeps the old config).
    BadConfig(
      text:
        #"{ apps: { web: { command: ["x"], hooks: { ready: { command: ["sh", "-c", "no-such-program-27 PING"] } } } } }"#,
      message: "jetsamd.json5: apps.web.hooks.ready: no-such-program-27: not found in /usr/local/bin:/usr/bin:/bin"),
    BadConfig(
      text:
        #"{ apps: { web: { command: ["x"], hooks: { didEnterBackground: { command: ["/nonexistent-27/save"] } } } } }"#,
      message: "jetsamd.json5: apps.web.hooks.didEnterBackground: /nonexistent-27/save: no such file"),
    BadConfig(
      text: #"{ apps: { mail: { command: ["x"], memoryLimit: "12Q" } } }"#,
      message: #"jetsamd.json5: apps.mail.memoryLimit: "12Q" is not a size"#),
    BadConfig(text: "{ device: { bogus: 1 } }", message: "jetsamd.json5: device.bogus: unknown key"),
    BadConfig(text: "{ apps: { mail: {} } }", message: "jetsamd.json5: apps.mail.command: missing"),
    BadConfig(
      text: #"{ apps: { mail: { command: "x" } } }"#, message: "jetsamd.json5: apps.mail.command: expected a list"),
    BadConfig(
      text: #"{ suspend: { mode: "nap" } }"#, message: #"jetsamd.json5: suspend.mode: "nap" is not a suspend mode"#),
    BadConfig(
      text: #"{ device: { thresholds: { urgent: { enter: "40%", clear: "45%" } } } }"#,
      message: "jetsamd.json5: device.thresholds.urgent.enter: must be below warning.enter"),
    BadConfig(text: "{ foregroundSlots: 0 }", message: "jetsamd.json5: foregroundSlots: must be at least 1"),
    BadConfig(text: #"{ apps: { "-x": { command: ["a"] } } }"#, message: "jetsamd.json5: apps.-x: app names are"),
    BadConfig(text: "{ foo", message: "jetsamd.json5: not valid JSON5"),
    BadConfig(text: #"{ killTimeout: "soon" }"#, message: #"jetsamd.json5: killTimeout: "soon" is not a duration"#),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], hooks: { didEnterBackground: { signal: "SIGKILL" } } } } }"#,
      message: #"jetsamd.json5: apps.a.hooks.didEnterBackground.signal: "SIGKILL" is not a signal a hook may send"#),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], hooks: { ready: { command: [] } } } } }"#,
      message: "jetsamd.json5: apps.a.hooks.ready.command: must name a program"),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], hooks: { ready: { command: ["p"], validFor: "10s" } } } } }"#,
      message: "jetsamd.json5: apps.a.hooks.ready.validFor: only the digest hook has a validity"),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], hooks: { digest: { command: ["/bin/true"] } } } } }"#,
      message: "jetsamd.json5: apps.a.hooks.digest: needs a ready hook (the restored digest waits for it)"),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], hooks: { digest: { command: ["d"], validFor: 0 } } } } }"#,
      message: "jetsamd.json5: apps.a.hooks.digest.validFor: must be above 0"),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], hooks: { digest: { command: ["d"], signal: "usr1" } } } } }"#,
      message: "jetsamd.json5: apps.a.hooks.digest.signal: unknown key"),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], hooks: { didSave: { command: ["d"] } } } } }"#,
      message: "jetsamd.json5: apps.a.hooks.didSave: unknown lifecycle event or command"),
    BadConfig(
      text: #"{ suspend: { timeout: "later" } }"#,
      message: #"jetsamd.json5: suspend.timeout: "later" is not a duration"#),
    BadConfig(text: "{ records: { keep: 0 } }", message: "jetsamd.json5: records.keep: must be from 1 to 100"),
    BadConfig(
      text: #"{ records: { rotateSize: "4K" } }"#, message: "jetsamd.json5: records.rotateSize: must be at least 1M"),
    BadConfig(
      text: #"{ records: { stopGrace: "2m" } }"#, message: "jetsamd.json5: records.stopGrace: must be at most 60s"),
    BadConfig(text: "{ records: { rotate: 1 } }", message: "jetsamd.json5: records.rotate: unknown key"),
    BadConfig(text: #"{ appUser: "a:b" }"#, message: #"jetsamd.json5: appUser: "a:b" is not a user name"#),
    BadConfig(
      text: #"{ appAcknowledgements: "sometimes" }"#,
      message: #"jetsamd.json5: appAcknowledgements: "sometimes" is not one of auto, always, never"#),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], acknowledgements: "yes" } } }"#,
      message: #"jetsamd.json5: apps.a.acknowledgements: "yes" is not one of auto, always, never"#),
    BadConfig(
      text: "{ foregroundSlots: 1e300 }", message: "jetsamd.json5: foregroundSlots: expected an integer, got 1e+300"),
    BadConfig(
      text: "{ foregroundSlots: 3.5 }", message: "jetsamd.json5: foregroundSlots: expected an integer, got 3.5"),
    BadConfig(
      text: "{ diagnostics: { cpuSamples: 0 } }",
      message: "jetsamd.json5: diagnostics.cpuSamples: must be from 1 to 100"),
    BadConfig(
      text: #"{ diagnostics: { captureBudget: "2m" } }"#,
      message: "jetsamd.json5: diagnostics.captureBudget: must be from 10ms to 60s"),
    BadConfig(
      text: #"{ metrics: { textfile: "jetsam.prom" } }"#,
      message:
        "jetsamd.json5: metrics.textfile: must be an absolute path ending in .prom (node_exporter's textfile collector reads *.prom)"
    ),
    BadConfig(
      text: #"{ metrics: { textfile: "/run/jetsam/metrics/jetsam.prom", interval: "100ms" } }"#,
      message: "jetsamd.json5: metrics.interval: must be from 1s to 1h"),
    BadConfig(
      text: #"{ metrics: { listen: "localhost:9772" } }"#,
      message:
        #"jetsamd.json5: metrics.listen: "localhost" is not a numeric IPv4 address (jetsamd resolves no names; for IPv6 write [ADDRESS]:PORT)"#
    ),
    BadConfig(
      text: #"{ metrics: { listen: "127.0.0.1:0" } }"#,
      message: #"jetsamd.json5: metrics.listen: the port must be a number from 1 to 65535, not "0""#),
    BadConfig(
      text: #"{ metrics: { listen: "127.0.0.1:+80" } }"#,
      message: #"jetsamd.json5: metrics.listen: the port must be a number from 1 to 65535, not "+80""#),
    BadConfig(
      text: #"{ metrics: { listen: "::1:9772" } }"#,
      message: "jetsamd.json5: metrics.listen: an IPv6 address goes in brackets before its port, as in [::1]:9772"),
    BadConfig(
      text: #"{ metrics: { listen: "9772" } }"#,
      message: "jetsamd.json5: metrics.listen: must be HOST:PORT with a numeric address, as in 127.0.0.1:9772"),
    BadConfig(
      text: #"{ metrics: { listen: 9772 } }"#,
      message: "jetsamd.json5: metrics.listen: expected a string"),
    BadConfig(
      text: #"{ lockedFiles: { action: "panic" } }"#,
      message: #"jetsamd.json5: lockedFiles.action: "panic" is not one of kill, defer, ignore"#),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], lockedFiles: { paths: ["shared"] } } } }"#,
      message: #"jetsamd.json5: apps.a.lockedFiles.paths: "shared" is not an absolute path"#),
    BadConfig(
      text: #"{ sockets: { atSuspension: "close" } }"#,
      message: #"jetsamd.json5: sockets.atSuspension: "close" is not one of defunct, keep"#),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], sockets: { atSuspension: true } } } }"#,
      message: "jetsamd.json5: apps.a.sockets.atSuspension: expected a string"),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], sockets: { onSuspend: "keep" } } } }"#,
      message: "jetsamd.json5: apps.a.sockets.onSuspend: unknown key"),
    BadConfig(
      text: #"{ cpuMonitor: { foreground: { fatal: { limit: 90, window: "60s" } } } }"#,
      message: "jetsamd.json5: cpuMonitor.foreground.fatal: is for background apps only"),
    BadConfig(
      text: #"{ cpuMonitor: { background: { limit: 80, window: "60s", killAfter: "1m" } } }"#,
      message: "jetsamd.json5: cpuMonitor.background.limit: the limits are now `fatal: { limit, window }`"),
    BadConfig(
      text: #"{ cpuMonitor: { background: { fatal: { limit: 80, window: "60s", killAfter: "1m" } } } }"#,
      message: "jetsamd.json5: cpuMonitor.background.fatal.killAfter: was removed"),
    BadConfig(
      text: #"{ cpuMonitor: { background: { nonFatal: { limit: 50, windw: "60s" } } } }"#,
      message: "jetsamd.json5: cpuMonitor.background.nonFatal.windw: unknown key"),
    BadConfig(
      text: #"{ cpuMonitor: { background: { fatal: { limit: 0, window: "60s" } } } }"#,
      message: "jetsamd.json5: cpuMonitor.background.fatal.limit: 0.0 is not a CPU limit"),
    BadConfig(
      text:
        #"{ apps: { a: { command: ["x"], cpuMonitor: { background: { fatal: { limit: 80, window: "500ms" } } } } } }"#,
      message: "jetsamd.json5: apps.a.cpuMonitor.background.fatal.window: must be at least 1s"),
    BadConfig(
      text: #"{ watchdog: { underDebugger: "pause" } }"#,
      message: #"jetsamd.json5: watchdog.underDebugger: "pause" is not one of hold, kill"#),
    BadConfig(
      text: #"{ diskWriteMonitor: { limit: "1Q" } }"#,
      message: #"jetsamd.json5: diskWriteMonitor.limit: "1Q" is not a size"#),
    BadConfig(
      text: #"{ diskWriteMonitor: { limit: 0 } }"#,
      message: "jetsamd.json5: diskWriteMonitor.limit: must be at least 1 byte"),
    BadConfig(
      text: #"{ apps: { a: { command: ["x"], diskWriteMonitor: { window: "500ms" } } } }"#,
      message: "jetsamd.json5: apps.a.diskWriteMonitor.window: must be at least 1s"),
    BadConfig(
      text: #"{ diskWriteMonitor: { limit: "1G", every: "1h" } }"#,
      message: "jetsamd.json5: diskWriteMonitor.every: unknown key"),
    // Issue 29's examples: each once named no place.
    BadConfig(
      text: "{ daemonNice: 99999999999 }",
      message: "jetsamd.json5: daemonNice: 99999999999 is out of range (an integer from -2147483648 to 2147483647)"),
    BadConfig(text: "{ daemonNice: 30 }", message: "jetsamd.json5: daemonNice: must be from -20 to 19 (written: 30)"),
    BadConfig(text: #"{ " ": 1 }"#, message: #"jetsamd.json5: " ": unknown key"#),
    BadConfig(
      text: #"{ apps: { " ": { command: ["x"] } } }"#, message: #"jetsamd.json5: apps." ": app names are"#),
    BadConfig(
      text: #"{ stateDirectory: "a\u0000b" }"#,
      message: "jetsamd.json5: not valid JSON5 at line 1, column 21: a NUL character (an escape for U+0000)"),
    BadConfig(
      text: #"{ appUser: "\ud800" }"#,
      message: #"jetsamd.json5: not valid JSON5 at line 1, column 13: a lone surrogate \uD800"#),
    BadConfig(
      text: "{ timeScale: Infinity }",
      message: "jetsamd.json5: timeScale: must be above 0 and at most 100 (written: Infinity)"),
    BadConfig(
      text: "{ apps: { mail: { command: [\"x\"],\n  pidsLimit: 1e30 } } }",
      message: "jetsamd.json5: apps.mail.pidsLimit: expected an integer, got 1e+30 (written: 1e30)"),
    BadConfig(text: "[1, 2]", message: "jetsamd.json5: the top level must be an object"),
    BadConfig(
      text: "{ defaults: { memoryLimit: 1.5 } }",
      message:
        "jetsamd.json5: defaults.memoryLimit: not a size (use e.g. 512M, 2G or plain bytes, at most 1P) (written: 1.5)"
    ),
    BadConfig(
      text: "{\n  device: { ram: \"2\u{19}G\" } }",
      message: "jetsamd.json5: not valid JSON5 at line 2, column 20: a control character (byte 0x19) inside a string"),
  ]

  @Test("appAcknowledgements is every app's mode unless its entry names one")
  func acknowledgementDefault() throws {
    let config = try ConfigLoader.parse(
      """
      { appAcknowledgements: "always",
        apps: { a: { command: ["x"] }, b: { command: ["x"], acknowledgements: "never" } } }
      """, file: "jetsamd.json5")
    #expect(config.apps["a"].map { config.settings(of: $0, named: "a") }?.acknowledgements == .always)
    #expect(config.apps["b"].map { config.settings(of: $0, named: "b") }?.acknowledgements == .never)
    let plain = try ConfigLoader.parse(#"{ apps: { a: { command: ["x"] } } }"#, file: "jetsamd.json5")
    #expect(
      plain.apps["a"].map { plain.settings(of: $0, named: "a") }?.acknowledgements == .auto, "auto when nothing says")
  }

  @Test("an app's lockedFiles keys override the config's, key by key; iOS's kill when nothing says")
  func lockedFilesOverride() throws {
    let config = try ConfigLoader.parse(
      """
      { lockedFiles: { paths: ["/srv/shared"], retry: "2s" },
        apps: { a: { command: ["x"] }, b: { command: ["x"], lockedFiles: { action: "defer" } } } }
      """, file: "jetsamd.json5")
    #expect(
      config.apps["a"].map { config.settings(of: $0, named: "a") }?.lockedFiles
        == LockedFileRule(action: .kill, paths: ["/srv/shared"], retry: .seconds(2)))
    #expect(
      config.apps["b"].map { config.settings(of: $0, named: "b") }?.lockedFiles
        == LockedFileRule(action: .defer, paths: ["/srv/shared"], retry: .seconds(2)))
  }

  @Test("an app's CPU limits stand over the config's, limit by limit, scaled; null turns one off")
  func cpuMonitorOverride() throws {
    let config = try ConfigLoader.parse(
      """
      { timeScale: 0.5, cpuMonitor: { background: { nonFatal: { limit: 40, window: "100s" } } },
        apps: { a: { command: ["x"] }, b: { command: ["x"], cpuMonitor: { background: { fatal: null } } },
          c: { command: ["x"], cpuMonitor: { foreground: { nonFatal: { limit: 90, window: "10s" } } } } } }
      """, file: "jetsamd.json5")
    let iOSFatal = CPUBudget(limitPercent: 80, window: .seconds(30))
    let nonFatal = CPUBudget(limitPercent: 40, window: .seconds(50))
    #expect(
      Daemon.policyConfig(config, thresholds: Self.thresholds, oomScoreFloor: 0).cpu
        == CPUMonitorConfig(background: CPUStateLimits(fatal: iOSFatal, nonFatal: nonFatal)))
    #expect(config.apps["a"].map { config.settings(of: $0, named: "a") }?.cpuLimits == nil, "the config's")
    #expect(
      config.apps["b"].map { config.settings(of: $0, named: "b") }?.cpuLimits
        == CPUMonitorConfig(background: CPUStateLimits(nonFatal: nonFatal)))
    #expect(
      config.apps["c"].map { config.settings(of: $0, named: "c") }?.cpuLimits
        == CPUMonitorConfig(
          background: CPUStateLimits(fatal: iOSFatal, nonFatal: nonFatal),
          foreground: CPUBudget(limitPercent: 90, window: .seconds(5))))
    // Written back as given (the state file keeps an app's config).
    let encoded = try JSONEncoder().encode(config.apps["b"]!.cpuMonitor!)
    #expect(String(decoding: encoded, as: UTF8.self).contains(#""fatal":null"#))
  }

  static let thresholds = PressureThresholds(
    warning: .init(enter: 3, clear: 4), urgent: .init(enter: 2, clear: 3), critical: .init(enter: 1, clear: 2))

  @Test(
    "diskWriteMonitor: iOS's 1 GB in 24 h by default, scaled by timeScale, an app's keys over the config's, null off")
  func diskWriteMonitorOverride() throws {
    let config = try ConfigLoader.parse(
      """
      { timeScale: 0.5, diskWriteMonitor: { limit: "10M" },
        apps: { a: { command: ["x"] }, b: { command: ["x"], diskWriteMonitor: { window: "10s" } },
                off: { command: ["x"], diskWriteMonitor: null } } }
      """, file: "jetsamd.json5")
    func limit(_ name: String) -> DiskWriteLimit? {
      config.settings(of: config.apps[name] ?? AppConfig(command: ["x"]), named: name).diskWrites
    }
    #expect(limit("a") == DiskWriteLimit(bytes: 10 << 20, window: .seconds(12 * 3600)))
    #expect(limit("b") == DiskWriteLimit(bytes: 10 << 20, window: .seconds(5)))
    #expect(limit("off") == nil)
    #expect(limit("adhoc") == DiskWriteLimit(bytes: 10 << 20, window: .seconds(12 * 3600)), "ad-hoc apps too")
    let plain = try ConfigLoader.parse("{ apps: { a: { command: [\"x\"] } } }", file: "jetsamd.json5")
    #expect(plain.apps["a"].map { plain.settings(of: $0, named: "a") }?.diskWrites == .iOS)
    let none = try ConfigLoader.parse(
      """
      { diskWriteMonitor: null,
        apps: { a: { command: ["x"] }, b: { command: ["x"], diskWriteMonitor: { limit: "1M" } } } }
      """, file: "jetsamd.json5")
    #expect(none.apps["a"].map { none.settings(of: $0, named: "a") }?.diskWrites == nil, "off daemon-wide")
    #expect(
      none.apps["b"].map { none.settings(of: $0, named: "b") }?.diskWrites
        == DiskWriteLimit(bytes: 1 << 20, window: .seconds(86_400)), "an app's own entry watches it all the same")
  }

  @Test("an app's sockets entry overrides the config's; iOS's defunct when nothing says")
  func socketsOverride() throws {
    let config = try ConfigLoader.parse(
      #"{ apps: { a: { command: ["x"] }, b: { command: ["x"], sockets: { atSuspension: "keep" } } } }"#,
      file: "jetsamd.json5")
    #expect(config.sockets == .standard && config.sockets.rule == .defunct)
    #expect(config.apps["a"].map { config.settings(of: $0, named: "a") }?.sockets == .defunct)
    #expect(config.apps["b"].map { config.settings(of: $0, named: "b") }?.sockets == .keep)
    let kept = try ConfigLoader.parse(
      #"{ sockets: { atSuspension: "keep" }, apps: { a: { command: ["x"] }, b: { command: ["x"], sockets: { atSuspension: "defunct" } } } }"#,
      file: "jetsamd.json5")
    #expect(kept.apps["a"].map { kept.settings(of: $0, named: "a") }?.sockets == .keep)
    #expect(kept.apps["b"].map { kept.settings(of: $0, named: "b") }?.sockets == .defunct)
    // An ad-hoc app (no entry) gets the daemon-wide rule, unless its launch request says.
    var request = ControlRequest(verb: .launch, app: "y")
    request.command = ["y"]
    let adHoc = try request.launchSpec(config: kept, peer: 0, userName: { _ in "root" }).spec
    #expect(kept.settings(of: adHoc, named: "y").sockets == .keep)
    request.sockets = .defunct
    let asked = try request.launchSpec(config: kept, peer: 0, userName: { _ in "root" }).spec
    #expect(kept.settings(of: asked, named: "y").sockets == .defunct)
  }

  @Test("a launch request's sockets field takes defunct or keep; anything else is named in the error")
  func socketsInALaunchRequest() throws {
    let good = ControlRequestParser.parse(Array(#"{"v":1,"verb":"launch","app":"a","sockets":"keep"}"#.utf8))
    #expect((try? good.get())?.sockets == .keep)
    let bad = ControlRequestParser.parse(Array(#"{"v":1,"verb":"launch","app":"a","sockets":"close"}"#.utf8))
    guard case .failure(let error) = bad else {
      Issue.record("a bad sockets value was taken")
      return
    }
    #expect(error.code == .badRequest && error.message.hasPrefix("sockets: "), "\(error.message)")
  }

  @Test("a hook's signal is named in the config and given to the policy as a Signal")
  func hookSignal() throws {
    let config = try ConfigLoader.parse(
      #"{ apps: { a: { command: ["x"], hooks: { didEnterBackground: { signal: "usr1" } } } } }"#, file: "j.json5")
    #expect(config.apps["a"]?.hooks[.didEnterBackground]?.signal == .user1)
    #expect(config.apps["a"].map { config.settings(of: $0, named: "a") }?.hooks[.didEnterBackground] == .signal(.user1))
  }

  @Test("hooks.ready and hooks.digest reach the policy as the app's commands, and read back as written")
  func commandHooks() throws {
    let text = #"""
      { apps: { r: { command: ["redis-server"], hooks: {
          ready: { command: ["redis-cli", "PING"], timeout: "2s" },
          digest: { command: ["redis-cli", "DEBUG", "DIGEST"], validFor: "30s" },
          didEnterBackground: { command: ["redis-cli", "SAVE"] } } } } }
      """#
    let config = try ConfigLoader.parse(text, file: "j.json5")
    let app = try #require(config.apps["r"])
    let settings = config.settings(of: app, named: "r")
    #expect(
      settings.commands
        == AppCommands(
          ready: ["redis-cli", "PING"], digest: ["redis-cli", "DEBUG", "DIGEST"], digestValidFor: .seconds(30),
          readyTimeout: .seconds(2)))
    #expect(settings.hooks[.didEnterBackground] == .command(["redis-cli", "SAVE"], timeout: nil))
    let again = try JSONDecoder().decode(AppConfig.self, from: try JSONEncoder().encode(app))
    #expect(again == app)
  }

  @Test("an app's launch spec: its command, env and directory, its caps over the defaults, its user or the appUser")
  func launchSpec() throws {
    let config = try ConfigLoader.parse(
      """
      { defaults: { memoryLimit: "64M", cpuLimit: 50, pidsLimit: 100 }, appUser: "nobody",
        apps: { a: { command: ["x", "-v"], env: { K: "v" }, workingDirectory: "/srv", cpuLimit: 150 },
                b: { command: ["y"], user: "daemon", pidsLimit: 9,
                     hooks: { willTerminate: { command: ["/bin/sync"], timeout: "2s" } } } } }
      """, file: "jetsamd.json5")
    let a = try #require(config.apps["a"].map { config.settings(of: $0, named: "a") })
    #expect(
      a.launch
        == LaunchSpec(
          command: ["x", "-v"], environment: ["K": "v"], workingDirectory: "/srv", user: "nobody",
          limits: AppLimits(memoryBytes: 64 << 20, cpuPercent: 150, pids: 100)))
    #expect(!a.adHoc)
    let b = try #require(config.apps["b"].map { config.settings(of: $0, named: "b") })
    #expect(b.launch?.user == "daemon" && b.launch?.limits == AppLimits(memoryBytes: 64 << 20, cpuPercent: 50, pids: 9))
    #expect(b.hooks[.willTerminate] == .command(["/bin/sync"], timeout: .seconds(2)))
    #expect(config.settings(of: AppConfig(command: ["z"]), named: "z").adHoc, "an app the config does not declare")
  }

  @Test("a bad config names the file, the key path and the reason", arguments: badConfigs)
  func rejected(_ bad: BadConfig) {
    do {
      _ = try ConfigLoader.parse(bad.text, file: "jetsamd.json5")
      Issue.record("accepted: \(bad.text)")
    } catch {
      #expect(error.description.hasPrefix(bad.message), "got: \(error.description)")
      #expect(error.namesPlace, "no place in: \(error.description)")
    }
  }

  @Test("a file that is not UTF-8 is refused by the offset of its first bad byte, never handed to the JSON5 scanner")
  func notUTF8() {
    // Foundation's JSON5 scanner traps on this one (an invalid byte in an unquoted key).
    let bytes = Array("{ devIc".utf8) + [0xF8] + Array("e: { ram: \"1G\" } }".utf8)
    do {
      _ = try ConfigLoader.parse(bytes: bytes, file: "j.json5")
      Issue.record("accepted")
    } catch {
      #expect(error.reason == "not UTF-8 text: an invalid byte at offset 7")
    }
    #expect(firstInvalidUTF8Offset(in: Data("é ✓ 😀".utf8)) == nil)
    #expect(firstInvalidUTF8Offset(in: Data([0x61, 0xC3])) == 1)
  }

  @Test("the shipped default config and every profile are valid")
  func shippedConfigs() throws {
    let root = Binaries.packageRoot + "/config"
    let base = try ConfigLoader.load(path: root + "/jetsamd.json5")
    #expect(base.device.ram == .bytes(2 << 30))
    #expect(base.suspend.mode == .signal)
    #expect(base.cpuMonitor == .standard, "the documented cpuMonitor is the default")
    #expect(base.watchdog == WatchdogConfig(), "the documented watchdog is the default")
    #expect(base.lockedFiles == .standard, "the documented lockedFiles is the default")
    #expect(base.diskWriteMonitor == .standard, "the documented diskWriteMonitor is the default")
    #expect(base.sockets == .standard, "the documented sockets is the default")
    #expect(base.diagnostics == DiagnosticsSettings(), "the documented diagnostics are the default")
    #expect(
      Daemon.policyConfig(
        base,
        thresholds: .init(
          warning: .init(enter: 3, clear: 4), urgent: .init(enter: 2, clear: 3), critical: .init(enter: 1, clear: 2)),
        oomScoreFloor: 0
      ).cpu == CPUMonitorConfig())
    let profiles = try FileManager.default.contentsOfDirectory(atPath: root + "/profiles").filter {
      $0.hasSuffix(".json5")
    }
    #expect(profiles.count >= 3)
    for profile in profiles {
      _ = try ConfigLoader.load(path: root + "/jetsamd.json5", profile: root + "/profiles/" + profile)
    }
    let lowEnd = try ConfigLoader.load(path: root + "/jetsamd.json5", profile: root + "/profiles/lowend-1g.json5")
    #expect(lowEnd.device.ram == .bytes(1 << 30))
    #expect(lowEnd.suspend.mode == .signal, "keys a profile does not set keep the base config's values")
  }

  @Test("sizes, durations and percentages parse as documented")
  func values() throws {
    let config = try ConfigLoader.parse(
      """
      {
        device: { ram: "1.5G", thresholds: { warning: { enter: "300M", clear: "35%" } } },
        killTimeout: "250ms", terminateGrace: 3, records: { rotateAge: "2d" },
        apps: { a: { command: ["x"], memoryLimit: 1048576, cpuLimit: 50, band: "audio" } },
      }
      """, file: "t.json5")
    #expect(config.device.ram == .bytes(3 << 29))
    let thresholds = config.device.thresholds.resolved(ram: 1000)
    #expect(thresholds.warning.clear == 350)
    #expect(config.device.thresholds.warning.enter == .bytes(300 << 20))
    #expect(config.killTimeout.duration == .milliseconds(250))
    #expect(config.terminateGrace.duration == .seconds(3))
    #expect(config.records.rotateAge.duration == .seconds(2 * 86_400))
    #expect(config.apps["a"]?.caps?.memoryLimit?.bytes == 1 << 20)
    #expect(config.apps["a"]?.band == .audio)
  }
}
