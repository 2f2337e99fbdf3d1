import JetsamConfig
import JetsamShell
import JetsamTestTraits
import Testing

/// The metrics listener's HTTP, byte for byte: request heads, the answers routed from them, and listen addresses.
@Suite("Metrics endpoint HTTP", .offThePool)
struct MetricsEndpointTests {
  static func parse(_ text: String) -> HTTPRequestHead.Parsed { HTTPRequestHead.parse(Array(text.utf8)) }

  @Test("a scrape's head, with CRLF or bare LF, after stray empty lines, is taken; an unfinished one waits")
  func heads() {
    let scrape = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9772\r\nAccept: text/plain;version=0.0.4\r\n\r\n"
    #expect(Self.parse(scrape) == .request(HTTPRequestHead(method: "GET", target: "/metrics", version: "HTTP/1.1")))
    #expect(
      Self.parse("\r\nHEAD /metrics?a=b HTTP/1.0\n\n")
        == .request(HTTPRequestHead(method: "HEAD", target: "/metrics?a=b", version: "HTTP/1.0")))
    #expect(HTTPRequestHead(method: "GET", target: "/metrics?a=b", version: "HTTP/1.1").path == "/metrics")
    for prefix in [0, 5, 22, scrape.utf8.count - 2, scrape.utf8.count - 1] {
      #expect(HTTPRequestHead.parse(Array(Array(scrape.utf8).prefix(prefix))) == .incomplete, "\(prefix) bytes")
    }
  }

  @Test(
    "malformed heads are refused with the status that says why",
    arguments: [
      ("garbage\r\n\r\n", HTTPStatus.badRequest),
      ("GET  /metrics HTTP/1.1\r\n\r\n", .badRequest),
      ("GET metrics HTTP/1.1\r\n\r\n", .badRequest),
      ("GET /met rics HTTP/1.1\r\n\r\n", .badRequest),
      ("G(T /metrics HTTP/1.1\r\n\r\n", .badRequest),
      ("GET /metrics HTTX/1.1\r\n\r\n", .badRequest),
      ("GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", .badRequest),
      ("GET /metrics HTTP/1.1\r\nName : value\r\n\r\n", .badRequest),
      ("GET /metrics HTTP/1.1\r\n folded: value\r\n\r\n", .badRequest),
      ("GET /metrics HTTP/2.0\r\n\r\n", .versionNotSupported),
      ("GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: 9000) + "\r\n\r\n", .headTooLarge),
      ("GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: 9000), .headTooLarge),
    ])
  func refusals(_ text: String, _ status: HTTPStatus) {
    guard case .refused(let refused, let reason) = Self.parse(text) else {
      Issue.record("\(text.prefix(40)): \(Self.parse(text))")
      return
    }
    #expect(refused == status && !reason.isEmpty, "\(text.prefix(40)): \(reason)")
  }

  @Test("GET /metrics answers the exposition as Prometheus text; HEAD its headers; the rest 404 or 405")
  func routing() throws {
    var made = 0
    let exposition = {
      made += 1
      return "jetsam_info 1\n"
    }
    let get = MetricsEndpoint.response(
      to: HTTPRequestHead(method: "GET", target: "/metrics", version: "HTTP/1.1"), exposition: exposition)
    #expect(
      String(decoding: get.bytes, as: UTF8.self)
        == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: 14\r\n"
        + "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\njetsam_info 1\n")
    let head = MetricsEndpoint.response(
      to: HTTPRequestHead(method: "HEAD", target: "/metrics", version: "HTTP/1.0"), exposition: exposition)
    let headText = String(decoding: head.bytes, as: UTF8.self)
    #expect(headText.hasPrefix("HTTP/1.1 200 OK\r\n") && headText.contains("Content-Length: 14\r\n"))
    #expect(headText.hasSuffix("\r\n\r\n"), "no body after a HEAD's headers")
    #expect(made == 2)
    let post = MetricsEndpoint.response(
      to: HTTPRequestHead(method: "POST", target: "/metrics", version: "HTTP/1.1"), exposition: exposition)
    #expect(post.status == .methodNotAllowed && post.allow == "GET, HEAD")
    #expect(String(decoding: post.bytes, as: UTF8.self).contains("\r\nAllow: GET, HEAD\r\n"))
    let missing = MetricsEndpoint.response(
      to: HTTPRequestHead(method: "GET", target: "/metric", version: "HTTP/1.1"), exposition: exposition)
    #expect(missing.status == .notFound)
    let landing = MetricsEndpoint.response(
      to: HTTPRequestHead(method: "GET", target: "/", version: "HTTP/1.1"), exposition: exposition)
    #expect(landing.status == .ok && String(decoding: landing.body, as: UTF8.self).contains("/metrics"))
    #expect(made == 2, "the exposition is made only for /metrics")
  }

  @Test("listen addresses: numeric IPv4, bracketed IPv6, which of them are loopback")
  func addresses() throws {
    let v4 = try ListenAddress(parsing: "127.0.0.1:9772")
    #expect(v4.family == .inet && v4.addressBytes == [127, 0, 0, 1] && v4.port == 9772 && v4.isLoopback)
    let v6 = try ListenAddress(parsing: "[::1]:80")
    #expect(v6.family == .inet6 && v6.port == 80 && v6.isLoopback)
    #expect(try !ListenAddress(parsing: "0.0.0.0:9772").isLoopback)
    #expect(try !ListenAddress(parsing: "[::]:9772").isLoopback)
    for bad in [
      "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "[::1]9772", "[::1:9772", "::1:9772",
      "host:9772", "127.0.0.1\u{0}x:9772", "[fe80::1%eth0]:9772", "1.2.3:9772",
    ] {
      #expect(throws: ListenAddressError.self, "\(bad)") { try ListenAddress(parsing: bad) }
    }
  }
}
