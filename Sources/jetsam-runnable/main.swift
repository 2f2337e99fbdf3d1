// jetsam-runnable: whether a launch's commands can run, asked as the user they will run as, for jetsamd.
//
//   jetsam-runnable --user NAME [--search-path PATH] [--directory DIR] [--] LABEL PROGRAM [LABEL PROGRAM ...]
//
// For each PROGRAM (a name looked up on PATH, or a path, relative to DIR when it does not start with `/`): found, a
// regular file, executable. Prints the first problem as `LABEL: PROGRAM: why` and exits 1; prints nothing and exits
// 0 when every one can run; 64 on bad arguments.
//
// A program of its own because the kernel answers for the credentials of whoever asks: jetsamd starts it through its
// process launcher as the app's user (the spawner service under systemd, where jetsamd may not change its ids), so
// that a member learns from a refusal nothing it could not see itself (ProgramCheck).
import Glibc
import JetsamPlatform

let usage = """
  usage: jetsam-runnable --user NAME [--search-path PATH] [--directory DIR] [--] LABEL PROGRAM [LABEL PROGRAM ...]

  Says whether each PROGRAM can be started by the user this runs as: found on PATH (default
  /usr/local/bin:/usr/bin:/bin) or, for a relative path, in DIR; a regular file; executable. Prints the first
  problem as "LABEL: PROGRAM: why" and exits 1; prints nothing and exits 0 when every one can run. NAME names the
  user in messages. jetsamd runs this as the user an app's commands will run as.

  exit status: 0 all can run, 1 one cannot, 64 bad arguments
  """

/// Writes all of `text` to descriptor `fd` (a pipe to jetsamd: written through, no stdio buffer to flush).
func say(_ text: String, to fd: Int32) {
  try? FileDescriptor(rawValue: fd).writeAll(Array(text.utf8))
}

func misuse(_ message: String) -> Never {
  say("jetsam-runnable: \(message)\n\(usage)\n", to: STDERR_FILENO)
  exit(64)
}

var user: String?
var searchPath = "/usr/local/bin:/usr/bin:/bin"
var directory: String?
var rest: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--help", "-h":
    say(usage + "\n", to: STDOUT_FILENO)
    exit(0)
  case "--user", "--search-path", "--directory":
    guard let value = arguments.popFirst() else { misuse("\(argument) needs a value") }
    switch argument {
    case "--user": user = value
    case "--search-path": searchPath = value
    default: directory = value
    }
  case "--":
    rest += arguments
    arguments = []
  default:
    if argument.hasPrefix("--") && rest.isEmpty { misuse("unknown option \(argument)") }
    rest.append(argument)
  }
}
guard let user else { misuse("--user is required") }
guard !rest.isEmpty, rest.count % 2 == 0 else { misuse("give each PROGRAM after its LABEL") }
for index in stride(from: 0, to: rest.count, by: 2) {
  if let problem = ProgramCheck.problem(
    program: rest[index + 1], searchPath: searchPath, workingDirectory: directory, asker: .caller(name: user))
  {
    say("\(rest[index]): \(problem)\n", to: STDOUT_FILENO)
    exit(1)
  }
}
exit(0)
