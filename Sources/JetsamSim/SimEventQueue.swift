/// The simulation's pending events, earliest first; events due at the same instant come out in the order they were
/// scheduled, so a run never depends on how a heap happens to break ties.
struct SimEventQueue {
  /// What happens at an instant of simulated time.
  enum Kind {
    /// The user switches to another app.
    case userSwitch
    /// Something (a fetch, a notification) launches an app into the background.
    case backgroundLaunch
    /// App `app`'s process of launch `launch` finished starting.
    case spawned(app: Int, launch: Int)
    /// App `app`'s background work of stint `stint` is done: it may be suspended.
    case backgroundDone(app: Int, stint: Int32)
    /// The policy asked to be woken now.
    case tick
    /// Count the resident apps for the timeline.
    case residentSample
  }

  struct Entry {
    var time: Int64
    var order: Int
    var kind: Kind

    func isBefore(_ other: Entry) -> Bool { time != other.time ? time < other.time : order < other.order }
  }

  private var heap: [Entry] = []
  private var scheduled = 0

  var isEmpty: Bool { heap.isEmpty }

  /// Adds `kind` at `time` (nanoseconds of simulated time).
  mutating func schedule(_ kind: Kind, at time: Int64) {
    heap.append(Entry(time: time, order: scheduled, kind: kind))
    scheduled += 1
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].isBefore(heap[parent]) else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  /// The earliest event, taken out.
  mutating func pop() -> Entry? {
    guard !heap.isEmpty else { return nil }
    heap.swapAt(0, heap.count - 1)
    let first = heap.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var least = parent
      if left < heap.count && heap[left].isBefore(heap[least]) { least = left }
      if right < heap.count && heap[right].isBefore(heap[least]) { least = right }
      guard least != parent else { break }
      heap.swapAt(parent, least)
      parent = least
    }
    return first
  }
}
