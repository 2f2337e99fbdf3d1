/// What ``PressureControl`` and the control handler hold of the memory balloon of `pressure allocate`: its size,
/// how its filling goes, and its release. The daemon's is ``Balloon`` (a real process in a cgroup of the device);
/// unit tests hand in one whose charge they set by hand.
protocol MemoryBalloon: AnyObject {
  /// The memory it charges to the device, in bytes.
  var bytes: Int64 { get }
  /// How filling it goes.
  var charge: Balloon.Charge { get }
  /// Gives its memory back at once; `done` runs once all of it, its cgroup too, is gone.
  func release(done: @escaping () -> Void)
}

extension Balloon: MemoryBalloon {}
