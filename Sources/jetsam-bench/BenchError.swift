/// Why a bench step could not go on, said in words a reader of the report can act on.
struct BenchError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
