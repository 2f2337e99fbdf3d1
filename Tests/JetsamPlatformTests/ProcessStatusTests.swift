import Glibc
import JetsamPlatform
import Testing

/// `/proc/PID/status` and `/proc/PID/oom_score_adj`.
@Suite struct ProcessStatusTests {
  static let sample =
    "Name:\tjetsamd\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t0\t0\t0\t0\nVmRSS:\t    5120 kB\n"
    + "CapEff:\t000001ffffffffff\nGroups:\t0 27 \n"

  @Test func fieldsAreSplitAtTheFirstColon() {
    let status = ProcessStatus(parsing: Self.sample)
    #expect(status["Name"] == "jetsamd")
    #expect(status["State"] == "S (sleeping)")
    #expect(status["Uid"] == "0\t0\t0\t0")
    #expect(status["Groups"] == "0 27 ")
    #expect(status["Missing"] == nil)
  }

  @Test func residentSizeIsInBytes() {
    let expected: Int64 = 5120 * 1024
    #expect(ProcessStatus(parsing: Self.sample).residentBytes == expected)
    #expect(ProcessStatus(parsing: "Name:\tkthreadd\n").residentBytes == nil)
  }

  @Test func capabilitiesAreABitMask() {
    #expect(ProcessStatus(parsing: Self.sample).effectiveCapabilities == 0x1ff_ffff_ffff)
  }

  @Test func ownStatusNamesThisProcess() throws {
    let status = try ProcessStatus.read(pid: getpid())
    #expect(status["Pid"] == "\(getpid())")
    #expect((status.residentBytes ?? 0) > 0)
  }

  @Test func ownOOMScoreAdjustmentReads() throws {
    let value = try oomScoreAdj(pid: getpid())
    #expect((-1000...1000).contains(value))
    #expect(throws: SystemError.self) { try oomScoreAdj(pid: Int32.max) }
  }
}
