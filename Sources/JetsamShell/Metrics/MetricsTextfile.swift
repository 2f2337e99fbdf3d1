import Glibc
import JetsamCore
import JetsamPlatform

/// Writes the Prometheus exposition to the config's `metrics.textfile` every `metrics.interval`, for node_exporter's
/// textfile collector. The text is made on the loop (cheap: the apps and counters it holds); the file is written
/// on a helper thread (write, rename: a scrape sees the old file or the new, never part of one), readable by all
/// (mode 0644, its directory 0755) whatever jetsamd's umask, as the collector runs as another user.
final class MetricsTextfile {
  private let view: any MetricsTextfileView
  private let loop: any LoopScheduling
  private let log: Logger
  private var timer: (any LoopSource)!
  /// Writes the file, off the loop (jetsamd gives it a queue of its own: a long `exits` query never delays it).
  private let writer: any BackgroundRunning
  /// The last failure reported, so that a file that cannot be written is logged once, not every interval.
  private var lastFailure: String?

  init(view: any MetricsTextfileView, loop: any LoopScheduling, writer: any BackgroundRunning, log: Logger) throws {
    self.view = view
    self.loop = loop
    self.writer = writer
    self.log = log
    timer = try loop.addTimer(at: nil) { [unowned self] in self.write() }
  }

  /// Writes now, then every interval (or stops, when the config names no file).
  func restart() {
    guard view.metricsSettings.textfile != nil else { return timer.schedule(at: nil) }
    write()
  }

  private func write() {
    let settings = view.metricsSettings
    guard let path = settings.textfile else { return timer.schedule(at: nil) }
    timer.schedule(at: loop.now().advanced(by: settings.interval.duration))
    let text = view.expositionText()
    let work = { @Sendable () -> String? in
      do throws(SystemError) {
        try Self.write(text, to: path)
        return nil
      } catch {
        return "\(error)"
      }
    }
    writer.run(work) { [weak self] failure in
      guard let self, failure != self.lastFailure else { return }
      self.lastFailure = failure
      if let failure {
        self.log.warning("metrics textfile \(path): \(failure)")
      } else {
        self.log.notice("metrics textfile: writing \(path) every \(settings.interval.duration)")
      }
    }
  }

  private static func write(_ text: String, to path: String) throws(SystemError) {
    let directory = directoryPart(of: path)
    if mkdir(directory, 0o755) == 0 { chmod(directory, 0o755) }
    try replaceFile(at: path, with: Array(text.utf8), durable: false)
    try systemCall("chmod \(path)") { chmod(path, 0o644) }
  }
}
