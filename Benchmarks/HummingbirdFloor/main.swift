// The floor under the service's content route: Hummingbird 2 alone, serving one file's bytes from memory on
// one route, with no middleware, no document store and no coordination. compare-store.sh runs it beside the
// service and nginx, to show how much of the gap to nginx is the HTTP stack and how much is Quire's.
//   HummingbirdFloor FILE PORT
// prints "listening PORT" once it listens, and runs until SIGTERM/SIGINT.
import Foundation
import Hummingbird
import Logging
import NIOCore

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[2]),
    let bytes = FileManager.default.contents(atPath: arguments[1])
else {
    FileHandle.standardError.write(Data("usage: HummingbirdFloor FILE PORT\n".utf8))
    exit(64)
}
let body = ByteBuffer(bytes: bytes)
var logger = Logger(label: "floor")
logger.logLevel = .error
let router = Router()
router.get("file") { _, _ in
    Response(status: .ok, headers: [.contentType: "application/pdf"], body: ResponseBody(byteBuffer: body))
}
let app = Application(
    router: router,
    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { channel in
        FileHandle.standardOutput.write(Data("listening \(channel.localAddress?.port ?? port)\n".utf8))
    },
    logger: logger)
try await app.runService()
