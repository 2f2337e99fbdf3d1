import CJetsamShim

/// epoll event bits for ``SpawnerLoop/watch(fd:events:handler:)`` and jetsamd's `EventLoop`.
public enum EpollEvents {
  /// Readable. The corresponding C constant is `EPOLLIN`.
  public static let readable = UInt32(JETSAM_EPOLLIN)
  /// Priority data: PSI triggers and kernfs files such as cgroup.events. The C constant is `EPOLLPRI`.
  public static let priority = UInt32(JETSAM_EPOLLPRI)
  /// Writable. The C constant is `EPOLLOUT`.
  public static let writable = UInt32(JETSAM_EPOLLOUT)
  /// Error. The C constant is `EPOLLERR`.
  public static let error = UInt32(JETSAM_EPOLLERR)
  /// Hang-up. The C constant is `EPOLLHUP`.
  public static let hangUp = UInt32(JETSAM_EPOLLHUP)
}
