/// What `jetsam-stack` printed: samples of every thread's frames, innermost first.
struct StackSamples: Sendable, Equatable {
  struct Frame: Sendable, Equatable {
    var address: UInt64
    var moduleStart: UInt64
    var buildID: String?
    var symbolOffset: UInt64
    var modulePath: String?
    var symbol: String?
    /// The innermost frame, or one a signal interrupted (its address is the instruction itself).
    var activation = false
  }

  struct Thread: Sendable, Equatable {
    var id: Int32
    var name: String
    var frames: [Frame]
  }

  /// Drops, from thread `tid`'s frames, those above the frame a signal interrupted: a crash's thread is taken
  /// while it waits in jetsam's crash handler, and its stack starts, as MetricKit's does, where it faulted.
  mutating func trimSignalHandler(of tid: Int32) {
    for sample in samples.indices {
      for thread in samples[sample].indices where samples[sample][thread].id == tid {
        let frames = samples[sample][thread].frames
        // The first precise frame after the innermost is the signal's: libdwfl marks both the sigreturn trampoline
        // (glibc's `__restore_rt`) and the frame it interrupted, where the signal struck, which comes right below.
        guard var interrupted = frames.indices.dropFirst().first(where: { frames[$0].activation }) else { continue }
        if interrupted + 1 < frames.count && frames[interrupted + 1].activation { interrupted += 1 }
        samples[sample][thread].frames = Array(frames[interrupted...])
      }
    }
  }

  /// Each sample's threads, in the order taken.
  var samples: [[Thread]] = []
  /// The tool's `error` line, if it gave up (what it had taken before stays).
  var error: String?

  /// Reads the tool's output; lines it does not know (or cut short by a kill) are skipped.
  init(parsing text: String) {
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      switch fields[0] {
      case "sample":
        samples.append([])
      case "thread" where fields.count == 3 && !samples.isEmpty:
        guard let id = Int32(fields[1]) else { continue }
        samples[samples.count - 1].append(Thread(id: id, name: fields[2], frames: []))
      case "frame" where fields.count >= 7 && samples.last?.isEmpty == false:
        guard let address = UInt64(fields[1], radix: 16), let start = UInt64(fields[2], radix: 16),
          let offset = UInt64(fields[4], radix: 16)
        else { continue }
        let frame = Frame(
          address: address, moduleStart: start, buildID: fields[3] == "-" ? nil : fields[3], symbolOffset: offset,
          modulePath: fields[5] == "-" ? nil : fields[5], symbol: fields[6] == "-" ? nil : fields[6],
          activation: fields.count > 7 && fields[7] == "1")
        let last = samples.count - 1
        samples[last][samples[last].count - 1].frames.append(frame)
      case "error" where fields.count >= 2:
        error = fields[1...].joined(separator: " ")
      default:
        continue
      }
    }
  }
}
