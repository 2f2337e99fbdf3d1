import Glibc
import JetsamPlatform
import Testing

/// `statfs` types and directory listings.
@Suite struct FileSystemTests {
  @Test func procIsNoCgroupAndCgroupsAreWhereTheyAre() throws {
    let proc = try FileSystemType(of: "/proc")
    #expect(proc == FileSystemType(rawValue: 0x9fa0))  // PROC_SUPER_MAGIC
    // Pure cgroup v2 mounts cgroup2 at /sys/fs/cgroup; the hybrid layout a tmpfs holding the hierarchies.
    let root = try FileSystemType(of: "/sys/fs/cgroup")
    #expect(root == .cgroup2 || root == .tmpfs, "\(root)")
    #expect(throws: SystemError.self) { try FileSystemType(of: "/nonexistent") }
  }

  @Test func entriesLeaveOutDotsAndMarkDirectories() throws {
    let entries = try directoryEntries("/proc/self")
    #expect(!entries.contains { $0.name == "." || $0.name == ".." })
    #expect(entries.contains { $0.name == "fd" && $0.isDirectory })
    #expect(entries.contains { $0.name == "stat" && !$0.isDirectory })
    #expect(throws: SystemError.self) { try directoryEntries("/nonexistent") }
  }
}
