import Foundation
import QuireCommandLine
import StoreClient

extension ServerOptions {
    /// The service's URL: `--server`, else `QUIRE_SERVER`, else `http://127.0.0.1:8080`.
    var serverURL: String {
        if let server { return server }
        if let variable = ProcessInfo.processInfo.environment["QUIRE_SERVER"], !variable.isEmpty { return variable }
        return Self.defaultServer
    }

    /// The bearer token: `--token`, else `QUIRE_TOKEN` (the variable the service reads too), else none.
    var bearerToken: String? {
        if let token { return token }
        if let variable = ProcessInfo.processInfo.environment["QUIRE_TOKEN"], !variable.isEmpty { return variable }
        return nil
    }

    /// Runs `body` with a client of the service, shut down afterwards; the client's errors become one-line
    /// failures with their exit codes.
    func withClient<T>(_ body: (StoreClient) async throws -> T) async throws -> T {
        let client: StoreClient
        do {
            client = try StoreClient(server: serverURL, token: bearerToken)
        } catch let error as StoreClientError {
            throw CommandFailure(error)
        }
        do {
            let result = try await body(client)
            try? await client.shutdown()
            return result
        } catch let error as StoreClientError {
            try? await client.shutdown()
            throw CommandFailure(error)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
