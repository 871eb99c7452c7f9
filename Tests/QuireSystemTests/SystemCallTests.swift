import QuireSystem
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("The system-call layer")
struct SystemCallTests {
    @Test("a variable of the process environment is read by name; an unset one is nil")
    func processEnvironment() {
        let path = ProcessEnvironment.value("PATH")
        #expect(path != nil)
        #expect(path == getenv("PATH").map { String(cString: $0) })
        #expect(ProcessEnvironment.value("QUIRE_TEST_UNSET_\(getpid())") == nil)
    }

    @Test("the temporary directory is TMPDIR without trailing slashes, or /tmp when it is unset or empty")
    func temporaryDirectory() {
        #expect(ProcessEnvironment.temporaryDirectory(tmpdir: nil) == "/tmp")
        #expect(ProcessEnvironment.temporaryDirectory(tmpdir: "") == "/tmp")
        #expect(ProcessEnvironment.temporaryDirectory(tmpdir: "/var/tmp//") == "/var/tmp")
        #expect(ProcessEnvironment.temporaryDirectory(tmpdir: "/") == "/")
        #expect(ProcessEnvironment.temporaryDirectory(tmpdir: "/scratch") == "/scratch")
    }

    @Test("a path is made absolute as URL(fileURLWithPath:) makes it: the working directory, a slash, the path")
    func absolutePath() throws {
        #expect(SystemCall.absolutePath("/a/../b") == "/a/../b")
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let directory = String(cString: try #require(getcwd(&buffer, buffer.count)))
        #expect(SystemCall.absolutePath("f/../g") == (directory == "/" ? "" : directory) + "/f/../g")
    }

    @Test("retryingOnInterrupt retries EINTR and returns the call's value")
    func retriesInterruptedCalls() throws {
        var attempts = 0
        let value = try SystemCall.retryingOnInterrupt("read", path: "/some/file") { () -> Int in
            attempts += 1
            if attempts <= 2 {
                errno = EINTR
                return -1
            }
            return 42
        }
        #expect(value == 42)
        #expect(attempts == 3)
    }

    @Test("retryingOnInterrupt reports any other errno with the call's name and path, without retrying")
    func reportsOtherFailures() {
        var attempts = 0
        #expect(throws: SystemCallError(call: "open", errno: ENOENT, path: "/missing")) {
            try SystemCall.retryingOnInterrupt("open", path: "/missing") { () -> Int32 in
                attempts += 1
                errno = attempts <= 2 ? EINTR : ENOENT
                return -1
            }
        }
        #expect(attempts == 3)
        let error = SystemCallError(call: "open", errno: ENOENT, path: "/missing")
        #expect(error.description == "/missing: No such file or directory (open)")
        #expect(SystemCallError(call: "connect", errno: ENOENT).description
            == "connect: No such file or directory (errno 2)")
    }

    @Test("A pipe, a duplicate and a temporary file are close-on-exec from their creation")
    func descriptorsAreCloseOnExec() throws {
        let (read, write) = try SystemCall.makePipe(.nonBlocking)
        defer {
            SystemCall.close(read)
            SystemCall.close(write)
        }
        let duplicate = try SystemCall.duplicate(read)
        defer { SystemCall.close(duplicate) }
        let directory = FileManagerless.temporaryDirectory
        let (file, path) = try SystemCall.makeTemporaryFile(template: directory + "/quire-test-XXXXXX.txt", suffixLength: 4)
        defer {
            unlink(path)
            SystemCall.close(file)
        }
        #expect(path.hasSuffix(".txt") && !path.contains("XXXXXX"))
        for descriptor in [read, write, duplicate, file] {
            #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
        }
        #expect(fcntl(read, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(write, F_GETFL) & O_NONBLOCK != 0)
    }

    @Test("accept on a listener with nothing pending is nil, not an error")
    func acceptWithNothingPending() throws {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        #expect(listener >= 0)
        defer { SystemCall.close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // An abstract address: nothing in the file system.
        let name = Array("\0quire-test-\(getpid())".utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        #expect(bound == 0)
        #expect(listen(listener, 1) == 0)
        #expect(try SystemCall.accept(listener, .nonBlocking) == nil)
    }
}

/// The temporary directory without Foundation.
enum FileManagerless {
    static var temporaryDirectory: String { getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp" }
}
