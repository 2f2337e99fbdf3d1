import Glibc
import JetsamCore
import JetsamPlatform
import JetsamValues

/// Reads how much each app has written, for the disk-write monitor's `sampleDiskWrites`, and reports the readings
/// together (`diskWritesSampled`). It decides nothing: the policy says whom to read and when, and judges.
///
/// Where the app's cgroup has I/O accounting (`io.stat`, with the io controller on a pure v2 host) one `pread` on
/// the loop reads it. Elsewhere (the hybrid layout: no io controller in the unified mount, and v1 `blkio` counts
/// nothing here without a throttle rule, buffered writes being charged to the flusher threads) it is the sum of
/// `write_bytes` over the cgroup's processes' `/proc/PID/io`: storage-bound bytes, counted when pages are dirtied,
/// what comes nearest to MetricKit's logical writes (`wchar` would count pipes, sockets and the app's log too).
/// Those reads are one file per process, so they run on a helper thread, one round at a time.
final class DiskWriteSampler {
  private let loop: any LoopScheduling
  /// Where the `/proc` scans run; nil: in place (the supervisor's own tests).
  var worker: (any BackgroundRunning)?
  /// The running apps, whose counters it reads.
  private let apps: RunningApps
  /// Where the readings go (the policy).
  private let inbox: any ResultInbox
  /// The readings wait for the stops under way to be seen.
  private let afterStops: AfterStopChecks
  /// A scan still under way: the next round's scans are left out rather than queued behind it (the policy takes
  /// the next reading as it comes; its window spans the gap).
  private var scanning = false

  init(loop: any LoopScheduling, apps: RunningApps, inbox: any ResultInbox, afterStops: AfterStopChecks) {
    self.loop = loop
    self.apps = apps
    self.inbox = inbox
    self.afterStops = afterStops
  }

  /// Reads the apps' counters and reports them in one `diskWritesSampled` (an app whose counter could not be read is
  /// left out), once the stops under way are seen (``AfterStopChecks``): a suspension asks for a reading of its app.
  func sample(_ refs: [AppProcessRef]) {
    afterStops.run { [unowned self] in self.read(refs) }
  }

  private func read(_ refs: [AppProcessRef]) {
    let at = loop.now()
    var samples: [DiskWriteSample] = []
    var scans: [(ref: AppProcessRef, pids: [Int32])] = []
    for ref in refs {
      guard let app = apps.process(ref.app, pid: ref.pid) else { continue }
      do {
        if let bytes = try app.cgroup.storageBytesWritten() {
          samples.append(DiskWriteSample(app: ref.app, pid: ref.pid, bytesWritten: bytes))
        } else {
          scans.append((ref, try app.cgroup.processIDs()))
        }
      } catch {
        continue
      }
    }
    guard !scans.isEmpty, !scanning else { return report(samples, at: at) }
    let scan: @Sendable () -> [DiskWriteSample] = { [scans] in
      scans.map { scan in
        DiskWriteSample(app: scan.ref.app, pid: scan.ref.pid, bytesWritten: Self.bytesWritten(by: scan.pids))
      }
    }
    guard let worker else { return report(samples + scan(), at: at) }
    scanning = true
    worker.run(scan) { [weak self] scanned in
      guard let self else { return }
      self.scanning = false
      self.report(samples + scanned, at: at)
    }
  }

  private func report(_ samples: [DiskWriteSample], at: Instant) {
    inbox.post(.observed([.diskWritesSampled(samples, at: at)]))
  }

  /// The sum of `write_bytes` over these processes (one gone since the list was read counts nothing: its bytes are
  /// its parent's once reaped).
  static func bytesWritten(by pids: [Int32]) -> Int64 {
    pids.reduce(0) { total, pid in total + ((try? ProcessIO.read(pid: pid))??.writeBytes ?? 0) }
  }
}
