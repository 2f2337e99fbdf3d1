/// A set kept in ascending order, as a list of short sorted chunks: insertion, removal and the first element cost a
/// binary search and a move within one chunk, not a sort of everything.
///
/// Why chunks rather than a tree: a chunk is a plain array, so walking the set in order (a jetsam snapshot) is a
/// walk over contiguous memory, and the only structure to keep right is the chunk list, short enough (one entry
/// per `chunkCapacity` elements) that moving it is cheap.
public struct SortedKeySet<Element: Comparable & Sendable>: Sendable {
  /// Non-empty sorted chunks; every element of a chunk is below every element of the next.
  private var chunks: [[Element]] = []
  /// How many elements the set holds.
  public private(set) var count = 0
  /// Comparisons made so far: the work the tests count, which unlike time does not depend on the machine.
  public private(set) var comparisons = 0

  /// A chunk splits in two past this size: large enough that the chunk list stays short, small enough that moving
  /// elements within one is cheap.
  static var chunkCapacity: Int { 256 }

  /// An empty set.
  public init() {}

  /// The least element, if any.
  public var first: Element? { chunks.first?.first }

  /// Whether the set holds no element.
  public var isEmpty: Bool { count == 0 }

  /// Every element, in ascending order.
  public var elements: FlattenSequence<[[Element]]> { chunks.joined() }

  /// Adds `element`; returns false (and changes nothing) if it was there already.
  @discardableResult
  public mutating func insert(_ element: Element) -> Bool {
    guard !chunks.isEmpty else {
      chunks = [[element]]
      count = 1
      return true
    }
    // The first chunk whose last element is not below `element`, or the last chunk if `element` is above all.
    let chunk = min(chunkIndex(for: element), chunks.count - 1)
    let position = lowerBound(of: element, inChunk: chunk)
    if position < chunks[chunk].count {
      comparisons += 1
      if chunks[chunk][position] == element { return false }
    }
    chunks[chunk].insert(element, at: position)
    count += 1
    if chunks[chunk].count > Self.chunkCapacity {
      let half = chunks[chunk].count / 2
      let upper = Array(chunks[chunk][half...])
      chunks[chunk].removeSubrange(half...)
      chunks.insert(upper, at: chunk + 1)
    }
    return true
  }

  /// Takes `element` out; returns false if it was not there.
  @discardableResult
  public mutating func remove(_ element: Element) -> Bool {
    let chunk = chunkIndex(for: element)
    guard chunk < chunks.count else { return false }
    let position = lowerBound(of: element, inChunk: chunk)
    guard position < chunks[chunk].count else { return false }
    comparisons += 1
    guard chunks[chunk][position] == element else { return false }
    chunks[chunk].remove(at: position)
    count -= 1
    if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
    return true
  }

  /// The first chunk whose last element is not below `element` (`chunks.count` if none).
  private mutating func chunkIndex(for element: Element) -> Int {
    var low = 0
    var high = chunks.count
    while low < high {
      let middle = (low + high) / 2
      comparisons += 1
      if chunks[middle][chunks[middle].count - 1] < element { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// Where `element` belongs in chunk `chunk`: the first position whose element is not below it.
  private mutating func lowerBound(of element: Element, inChunk chunk: Int) -> Int {
    var low = 0
    var high = chunks[chunk].count
    while low < high {
      let middle = (low + high) / 2
      comparisons += 1
      if chunks[chunk][middle] < element { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
