#if DEBUG
    import ArgumentParser
    import Foundation

    #if canImport(Glibc)
        import Glibc
    #endif

    /// Test only (debug builds): a forbidden act a worker does after entering its sandbox, to show that the
    /// sandbox stops it (`quire-pdf worker --misbehave ACT`). An act the sandbox lets through ends the process
    /// with status 0 (and, for `open-passwd`, the file's bytes on standard output); one refused with an error
    /// ends it with that errno as its status; one the filter kills ends it by `SIGSYS`.
    enum Misbehaviour: String, ExpressibleByArgument, CaseIterable {
        /// Open /etc/passwd for reading and copy it to standard output (killed by the open broker; Landlock
        /// would refuse it too: EACCES).
        case openPasswd = "open-passwd"
        /// Open /etc/passwd through a relative path from a font directory, `/usr/share/fonts/../../../etc/passwd`
        /// (killed: the broker lets no ".." through).
        case openPasswdDotDot = "open-passwd-dotdot"
        /// Open the font directory /usr/share/fonts for reading: allowed, the control that the broker lets the
        /// opens poppler needs through.
        case openFonts = "open-fonts"
        /// Open /dev/null for writing (killed: no open may write).
        case openWrite = "open-write"
        /// Make a Unix socket (killed).
        case socket
        /// Connect descriptor 3 to a Unix socket address (killed, whatever descriptor 3 is).
        case connect
        /// Replace the process with /bin/true (killed).
        case exec
        /// Fork a child that exits at once (killed: clone without CLONE_THREAD).
        case fork
        /// Set SIGSYS back to its default action, taking it from the open broker (killed).
        case takeSIGSYS = "take-sigsys"
        /// Start a thread and join it: allowed, the control that healthy work is not killed.
        case thread

        /// Does the act, then exits (status 0 when it was let through, its errno when it was refused).
        func act() -> Never {
            switch self {
            case .openPasswd:
                let descriptor = open("/etc/passwd", O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { exit(errno) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 { _ = write(1, buffer, count) }
                exit(0)
            case .openPasswdDotDot:
                exit(open("/usr/share/fonts/../../../etc/passwd", O_RDONLY | O_CLOEXEC) >= 0 ? 0 : errno)
            case .openFonts:
                let descriptor = open("/usr/share/fonts", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                guard descriptor >= 0 else { exit(errno) }
                exit(close(descriptor) == 0 ? 0 : errno)
            case .openWrite:
                exit(open("/dev/null", O_WRONLY | O_CLOEXEC) >= 0 ? 0 : errno)
            case .socket:
                exit(Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) >= 0 ? 0 : errno)
            case .connect:
                var address = sockaddr_un()
                address.sun_family = sa_family_t(AF_UNIX)
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.connect(3, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
                exit(connected == 0 ? 0 : errno)
            case .exec:
                let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
                execv("/bin/true", arguments)
                exit(errno)
            case .fork:
                let child = Glibc.fork()
                if child == 0 { _exit(0) }
                guard child > 0 else { exit(errno) }
                var status: Int32 = 0
                _ = waitpid(child, &status, 0)
                exit(0)
            case .takeSIGSYS:
                var action = sigaction()
                action.__sigaction_handler.sa_handler = SIG_DFL
                exit(sigaction(SIGSYS, &action, nil) == 0 ? 0 : errno)
            case .thread:
                var thread = pthread_t()
                let started = pthread_create(&thread, nil, { _ in nil }, nil)
                guard started == 0 else { exit(started) }
                exit(pthread_join(thread, nil))
            }
        }
    }
#endif
