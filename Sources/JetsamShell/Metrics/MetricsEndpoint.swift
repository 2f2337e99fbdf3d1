/// What the metrics listener answers: `GET /metrics` (or HEAD) the Prometheus exposition; `GET /` a line pointing
/// there, as exporters' landing pages do; any other path 404, any other method 405.
public enum MetricsEndpoint {
  /// Prometheus's text format, version 0.0.4 (what node_exporter serves when the scraper accepts it).
  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  /// The answer to `head`; `exposition` is made only for a request that gets it.
  public static func response(to head: HTTPRequestHead, exposition: () -> String) -> HTTPResponse {
    guard head.method == "GET" || head.method == "HEAD" else {
      var response = HTTPResponse.refusal(.methodNotAllowed, "\(head.method) is not served here; GET /metrics is")
      response.allow = "GET, HEAD"
      return response
    }
    var response: HTTPResponse
    switch head.path {
    case "/metrics": response = HTTPResponse(.ok, contentType: contentType, body: exposition())
    case "/": response = HTTPResponse(.ok, body: "jetsamd: Prometheus metrics at /metrics\n")
    default: response = .refusal(.notFound, "no \(head.path) here; GET /metrics")
    }
    response.sendsBody = head.method == "GET"
    return response
  }
}
