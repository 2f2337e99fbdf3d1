/// Why jetsamctl stops: misuse (exit 64) or a failed operation (exit 1).
enum CLIError: Error {
  case usage(String)
  case failed(String)
}
