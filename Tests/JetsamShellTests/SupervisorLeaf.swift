import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamPlatform
import Testing

@testable import JetsamShell

/// On pure cgroup v2, creating a device (``DeviceCgroup/create(layout:name:)``) moves every process of this test
/// process's cgroup, the test process included, into the leaf `<own>/supervisor` and enables controllers in
/// `<own>`, as jetsamd does in its service's cgroup. jetsamd leaves that to systemd, which removes the service's
/// cgroup when it stops; a test run must undo it itself, or the leaf outlives the run. So every scratch device is
/// made here, and once the last one is gone this process goes back to where it was: the controllers it enabled
/// disabled again, every process of the leaf moved back, the leaf removed. Nothing to undo on the hybrid layout.
final class SupervisorLeaf: @unchecked Sendable {
  /// The one for this test process.
  static let shared = SupervisorLeaf()

  private let lock = NSLock()
  private var devices = 0
  /// The cgroup this process was in (its cgroup2 directory) and the controllers enabled for its children then,
  /// while the devices may have moved it out.
  private var origin: (directory: String, controllers: Set<Substring>)?

  /// Creates device `name`; the first device of a run notes where this process is first.
  func createDevice(layout: CgroupLayout, name: String) throws -> DeviceCgroup {
    try lock.withLock {
      if devices == 0, case .unified(let root) = layout {
        let own = try layout.ownCgroup().unified
        // In the root (exempt from the rule) or already in a leaf of someone else's making, nothing moves.
        if own != "/" && !own.hasSuffix("/" + DeviceCgroup.supervisorName) {
          let directory = root + own
          origin = (directory, try Self.controllers(of: directory))
        }
      }
      do {
        let device = try DeviceCgroup.create(layout: layout, name: name)
        devices += 1
        return device
      } catch {
        if devices == 0 { restore() }
        throw error
      }
    }
  }

  /// A device made by ``createDevice(layout:name:)`` is removed; after the last, this process goes back.
  func deviceRemoved() {
    lock.withLock {
      devices -= 1
      if devices == 0 { restore() }
    }
  }

  /// Undoes what creating the devices did to this process's cgroup; what cannot be undone is a test issue.
  private func restore() {
    guard let origin else { return }
    self.origin = nil
    let leaf = origin.directory + "/" + DeviceCgroup.supervisorName
    guard access(leaf, F_OK) == 0 else { return }
    do {
      let added = try Self.controllers(of: origin.directory).subtracting(origin.controllers)
      // A cgroup with controllers enabled for its children may hold no process: disable them first.
      if !added.isEmpty {
        try writeTextFile(
          origin.directory + "/cgroup.subtree_control", added.map { "-\($0)" }.sorted().joined(separator: " "))
      }
      // Processes forked meanwhile are born in the leaf: again until it is empty.
      let emptied = try eventually(timeout: .seconds(10)) {
        let pids = try readTextFile(leaf + "/cgroup.procs").split(separator: "\n")
        for pid in pids {
          do throws(SystemError) {
            try writeTextFile(origin.directory + "/cgroup.procs", String(pid))
          } catch {
            if error.code != ESRCH { throw error }  // ESRCH: it exited meanwhile
          }
        }
        return pids.isEmpty && rmdir(leaf) == 0
      }
      if !emptied { Issue.record("\(leaf) was not emptied and removed within 10 s") }
    } catch {
      Issue.record("moving back out of \(leaf): \(error)")
    }
  }

  /// The controllers enabled for the children of the cgroup2 directory `directory`.
  private static func controllers(of directory: String) throws -> Set<Substring> {
    Set(try readTextFile(directory + "/cgroup.subtree_control").split(whereSeparator: \.isWhitespace))
  }
}
