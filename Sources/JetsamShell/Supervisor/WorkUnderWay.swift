import JetsamValues

/// Jobs under way per subject (the stack captures of a process, the socket destructions of a launch), and who waits
/// for all of a subject's to be done: what a kill waits for before its SIGKILL, or a resume before its SIGCONT.
struct WorkUnderWay<Subject: Hashable> {
  private var jobs: [Subject: (count: Int, waiters: [() -> Void])] = [:]

  /// Whether some job of `subject` is under way.
  func isBusy(_ subject: Subject) -> Bool { jobs[subject] != nil }

  /// A job of `subject` started; `then`, if given, is told once all of its jobs are done.
  mutating func started(_ subject: Subject, then: (() -> Void)? = nil) {
    jobs[subject, default: (0, [])].count += 1
    if let then { jobs[subject]!.waiters.append(then) }
  }

  /// Adds `waiter` for `subject`'s jobs; false (and nothing added) when none is under way.
  mutating func wait(for subject: Subject, _ waiter: @escaping () -> Void) -> Bool {
    guard jobs[subject] != nil else { return false }
    jobs[subject]!.waiters.append(waiter)
    return true
  }

  /// A job of `subject` is done: the waiters to tell now (all of them once its last job is done, else none).
  mutating func finished(_ subject: Subject) -> [() -> Void] {
    jobs[subject]?.count -= 1
    guard let done = jobs[subject], done.count <= 0 else { return [] }
    jobs.removeValueReleasingStorage(forKey: subject)
    return done.waiters
  }
}
