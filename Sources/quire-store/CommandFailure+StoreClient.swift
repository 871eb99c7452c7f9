import QuireCommandLine
import StoreClient

extension CommandFailure {
    /// Maps a client error to its line and exit code: 64 a request the service calls malformed (or a bad
    /// `--server`), 65 a change the service refused, 66 no such document, 69 no service (or a failing one),
    /// 76 an answer outside the API, 77 a missing or wrong token.
    init(_ error: StoreClientError) {
        switch error.reason {
        case .unreachable, .eventStreamLost:
            self.init(error.description, exitCode: Self.unavailable)
        case .invalidServerURL:
            self.init(error.description, exitCode: Self.usage)
        case .unexpectedResponse:
            self.init(error.description, exitCode: Self.protocolError)
        case .problem(let problem), .versionMismatch(_, _, _, let problem):
            self.init(problem.message, exitCode: Self.exitCode(forStatus: problem.status))
        }
    }

    private static func exitCode(forStatus status: Int) -> Int32 {
        switch status {
        case 400: usage
        case 401, 403: permission
        case 404: noInput
        case 500...: unavailable
        default: dataError
        }
    }
}
