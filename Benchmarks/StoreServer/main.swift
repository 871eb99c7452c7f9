// The document-store service built for benchmarks (release), without the command line:
//   StoreServer STORE_DIR PORT [ROOT]
// prints "listening PORT" once it listens, and runs until SIGTERM/SIGINT.
import DocumentStore
import Foundation
import Hummingbird
import Logging

let arguments = CommandLine.arguments
guard arguments.count >= 3, let port = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: StoreServer STORE_DIR PORT [ROOT]\n".utf8))
    exit(64)
}
var logger = Logger(label: "quire.bench")
logger.logLevel = .error
let roots = arguments.count > 3 ? [URL(fileURLWithPath: arguments[3]).resolvingSymlinksInPath()] : []
let configuration = StoreConfiguration(
    storeDirectory: URL(fileURLWithPath: arguments[1]), port: port, roots: roots)
let app = try buildApplication(configuration: configuration, logger: logger) { channel in
    FileHandle.standardOutput.write(Data("listening \(channel.localAddress?.port ?? port)\n".utf8))
}
try await app.runService()
