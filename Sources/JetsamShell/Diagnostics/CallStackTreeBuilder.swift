import JetsamProtocol

/// Turns stack samples into MetricKit's call stack tree, laid out as MetricKit lays out each kind: a crash's
/// stacks per thread with the innermost frame (where it faulted) as the root and its callers below; a hang's per
/// thread and a CPU exception's merged over all threads as flame graphs, the outermost frame (the thread's start)
/// as the root and the functions it called below, frames that samples share merged and counted (`sampleCount`).
enum CallStackTreeBuilder {
  enum Layout {
    /// One chain per thread, innermost frame first (crashes).
    case innermostFirstPerThread
    /// Per thread, outermost frame first (hangs).
    case outermostFirstPerThread
    /// Every thread's samples in one tree, outermost frame first, no thread attributed (CPU exceptions).
    case outermostFirstMerged
  }

  /// The tree of `samples`; per thread, the thread `attributed` (by id) is marked as the one the diagnostic is about
  /// and comes first.
  static func tree(_ samples: StackSamples, attributed: Int32, layout: Layout) -> CallStackTree {
    let innermostFirst = layout == .innermostFirstPerThread
    var order: [Int32] = []
    var roots: [Int32: [CallStackFrame]] = [:]
    var names: [Int32: String] = [:]
    for sample in samples.samples {
      for thread in sample {
        // Merged: every thread's samples go into one tree.
        let key = layout == .outermostFirstMerged ? 0 : thread.id
        if roots[key] == nil {
          order.append(key)
          roots[key] = []
        }
        names[key] = thread.name
        let frames = thread.frames.map(frame)
        insert(innermostFirst ? frames[...] : frames.reversed()[...], into: &roots[key]!)
      }
    }
    if layout == .outermostFirstMerged {
      var merged = CallStack(threadAttributed: nil, callStackRootFrames: roots[0] ?? [])
      merged.jetsamThreadID = nil
      var tree = CallStackTree(callStacks: roots.isEmpty ? [] : [merged])
      tree.callStackPerThread = false
      return tree
    }
    let ranked = order.enumerated().sorted {
      ($0.element == attributed ? 0 : 1, $0.offset) < ($1.element == attributed ? 0 : 1, $1.offset)
    }
    return CallStackTree(
      callStacks: ranked.map(\.element).map { id in
        var stack = CallStack(threadAttributed: id == attributed, callStackRootFrames: roots[id]!)
        stack.jetsamThreadID = id
        stack.jetsamThreadName = names[id]
        return stack
      })
  }

  /// Adds one stack (root first) to `level`: a frame at the same address is the same frame, counted again.
  private static func insert(_ stack: ArraySlice<CallStackFrame>, into level: inout [CallStackFrame]) {
    guard let first = stack.first else { return }
    let index: Int
    if let known = level.firstIndex(where: { $0.address == first.address }) {
      index = known
      level[index].sampleCount += 1
    } else {
      level.append(first)
      index = level.count - 1
    }
    var below = level[index].subFrames ?? []
    insert(stack.dropFirst(), into: &below)
    level[index].subFrames = below.isEmpty ? nil : below
  }

  private static func frame(_ frame: StackSamples.Frame) -> CallStackFrame {
    CallStackFrame(
      binaryName: frame.modulePath.map(fileName), binaryUUID: frame.buildID,
      offsetIntoBinaryTextSegment: frame.modulePath == nil ? nil : frame.address - frame.moduleStart,
      address: frame.address, sampleCount: 1, symbol: frame.symbol.map(SwiftDemangler.demangle),
      symbolOffset: frame.symbol == nil ? nil : frame.symbolOffset)
  }

  private static func fileName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }
}
