import JetsamValues

extension ProcessEnd {
  /// A waitpid(2) status.
  package init(waitStatus status: Int32) {
    let signal = status & 0x7f
    self = signal == 0 ? .exited(code: (status >> 8) & 0xff) : .signaled(signal: signal, dumpedCore: status & 0x80 != 0)
  }

  /// As a waitpid(2) status (nil for an end nobody saw).
  package var waitStatus: Int32? {
    switch self {
    case .exited(let code): (code & 0xff) << 8
    case .signaled(let signal, let dumpedCore): (signal & 0x7f) | (dumpedCore ? 0x80 : 0)
    case .unobserved: nil
    }
  }
}
