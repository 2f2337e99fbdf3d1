/// Where a cgroup no app holds any more goes to be removed, without waiting: the supervisor's ``CgroupReaper``, or a
/// recording one in the record queue's tests.
protocol CgroupRemoval: AnyObject {
  /// Removes `cgroup` now if it is empty, else soon.
  func remove(_ cgroup: any AppCgroupControl)
}

extension CgroupReaper: CgroupRemoval {}
