import JetsamCore
import JetsamProtocol

extension ControlResponse {
  /// The answer to a request that failed with `error`: a control error as it is, the policy's refusal in the
  /// protocol's words, anything else an internal error.
  static func failure(for error: any Error) -> ControlResponse {
    switch error {
    case let error as ControlError:
      return .failure(error)
    case let error as PolicyError:
      switch error {
      case .unknownApp: return .failure(ControlError(.unknownApp, error.description))
      case .illegalTransition: return .failure(ControlError(.illegalTransition, error.description))
      case .notLaunchable: return .failure(ControlError(.launchFailed, error.description))
      }
    default:
      return .failure(ControlError(.internalError, "\(error)"))
    }
  }
}
