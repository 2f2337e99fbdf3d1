import JetsamTestTraits
import Testing

@testable import JetsamShell

/// How the disk-write monitor's figures are read (`io.stat`) and written (MetricKit's `writesCaused`).
@Suite(.offThePool) struct DiskWriteCountersTests {
  @Test("io.stat's wbytes are summed over its devices")
  func ioStat() {
    let text =
      "8:0 rbytes=1 wbytes=4096 rios=1 wios=1 dbytes=0 dios=0\n253:0 rbytes=0 wbytes=1048576 rios=0 wios=2\n"
    #expect(AppCgroup.writtenBytes(ioStat: text) == 1_052_672)
    #expect(AppCgroup.writtenBytes(ioStat: "") == 0)
  }

  @Test("writesCaused reads as MetricKit writes storage: decimal megabytes, grouped, up to two decimals")
  func writesCaused() {
    #expect(CaptureJob.megabytes(2_147_483_648) == "2,147.48 MB")
    #expect(CaptureJob.megabytes(1_073_741_824) == "1,073.74 MB")
    #expect(CaptureJob.megabytes(4_980_736) == "4.98 MB")
    #expect(CaptureJob.megabytes(5_000_000) == "5 MB")
    #expect(CaptureJob.megabytes(1_050_000) == "1.05 MB")
    #expect(CaptureJob.megabytes(1_100_000) == "1.1 MB")
    #expect(CaptureJob.megabytes(0) == "0 MB")
    #expect(CaptureJob.megabytes(1_234_567_890_123) == "1,234,567.89 MB")
  }
}
