/// App names: what may be used as a cgroup directory and a CLI argument.
public enum AppName {
  public static let rule =
    "app names are 1-64 characters of letters, digits, '.', '_' and '-', starting with a letter or digit"
  public static func isValid(_ name: String) -> Bool {
    guard let first = name.first, first.isASCII, first.isLetter || first.isNumber, name.count <= 64 else {
      return false
    }
    return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
  }
}
