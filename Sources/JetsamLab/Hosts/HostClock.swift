import Foundation
import Glibc
import JetsamControlClient
import JetsamPlatform
import JetsamProtocol

/// How a host's jetsamd clock (its CLOCK_MONOTONIC, which every time it pushes is on) stands to the lab's, estimated
/// from request round trips: the daemon's time in a `watch` answer was read between the request's sending and its
/// answer's arrival, so it is taken for their midpoint, within half the round trip. Of several probes the one with the
/// shortest round trip bounds the offset best.
public struct HostClock: Codable, Sendable, Equatable {
  /// The daemon's clock minus the lab's, in nanoseconds: a daemon time minus this is the lab's time.
  public var offsetNanoseconds: Int64
  /// The shortest round trip measured; the offset is good to half of it.
  public var roundTripNanoseconds: Int64
  public var probes: Int

  /// Probes the daemon at `socket` `probes` times, each on a connection of its own (a `watch` answer carries the
  /// daemon's time; the subscription ends as the connection closes).
  static func estimate(socket: String, probes: Int = 5) throws -> HostClock {
    var best: (offset: Int64, roundTrip: Int64)?
    for _ in 0..<probes {
      let client = try ControlClient(path: socket)
      var request = ControlRequest(verb: .watch)
      // The longest sampling interval: the probe closes long before a sample would be pushed.
      request.interval = 5
      let sent = MonotonicClock.now().nanoseconds
      let answer = try client.send(request)
      let received = MonotonicClock.now().nanoseconds
      shutdown(client.socketDescriptor, Int32(SHUT_RDWR))
      guard let daemonTime = answer.watch?.monotonicNanoseconds else {
        throw LabError("jetsamd gave no time in its watch answer: \(answer.error?.message ?? "no snapshot")")
      }
      let roundTrip = received - sent
      if best == nil || roundTrip < best!.roundTrip {
        best = (daemonTime - (sent + roundTrip / 2), roundTrip)
      }
    }
    return HostClock(offsetNanoseconds: best!.offset, roundTripNanoseconds: best!.roundTrip, probes: probes)
  }

  /// `+0.412 ms ± 0.180 ms`, as the report states it.
  public var text: String {
    String(format: "%+.3f ms ± %.3f ms", Double(offsetNanoseconds) / 1e6, Double(roundTripNanoseconds) / 2e6)
  }
}
