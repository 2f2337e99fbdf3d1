import JetsamShell

/// Bytes from a client of the metrics listener, as jetsamd takes them: parsed as they arrive (reads may cut a
/// request anywhere: here every 61 bytes, and at the end), and the answer to the first whole head routed and
/// encoded.
enum HTTPRequestFuzzing {
  static func run(_ bytes: [UInt8]) {
    for cut in Array(stride(from: 1, to: bytes.count, by: 61)) + [bytes.count] {
      let read = Array(bytes[..<cut])
      switch HTTPRequestHead.parse(read) {
      case .incomplete:
        precondition(read.count < HTTPRequestHead.maxBytes, "a head over the limit is still incomplete")
        continue
      case .request(let head):
        precondition(head.target.first == "/" && head.version.hasPrefix("HTTP/1."), "accepted \(head)")
        let response = MetricsEndpoint.response(to: head) { "jetsam_info 1\n" }
        precondition(response.bytes.starts(with: Array("HTTP/1.1 ".utf8)), "no status line")
      case .refused(let status, let reason):
        precondition(status != .ok, "refused with 200")
        _ = HTTPResponse.refusal(status, reason).bytes
      }
      return
    }
  }
}
