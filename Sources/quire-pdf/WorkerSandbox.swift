import ArgumentParser
import CQuireLinux
import Foundation
import Poppler

#if canImport(Glibc)
    import Glibc
#endif

/// The sandbox a PDF worker enters once it has started and before it reads its first request: a CPU-time limit
/// (`RLIMIT_CPU`), Landlock (only font, font-configuration and poppler data directories may be read; nothing
/// written, created, removed or executed anywhere) and a seccomp-BPF filter (no new process or program, no
/// socket, no open that could write; every open goes through a broker that kills the process for a path outside
/// the readable directories; CQuireLinux's sandbox.c holds its table and the broker).
///
/// What happens when a part cannot be had:
/// - no Landlock (kernels before 5.13, or not enabled at boot): one line on standard error, and the worker
///   serves with the seccomp filter alone (reads of other paths are then possible, writes still are not);
/// - no seccomp filter (a kernel without `CONFIG_SECCOMP_FILTER`): one line on standard error and the worker
///   **refuses to serve** (exit status 70): it parses hostile bytes, and the README promises the filter. The
///   service then answers PDF work with `pdf-worker-crashed` and the line in its log says why; an operator who
///   prefers availability on such a kernel can start workers with `--no-sandbox` (a `QUIRE_PDF_WORKER` script).
struct WorkerSandbox: ParsableArguments {
    /// Whether to enter the sandbox (on unless `--no-sandbox`).
    @Flag(inversion: .prefixedNo, help: "Whether to enter the sandbox (Landlock and a seccomp filter) before serving.")
    var sandbox = true

    /// `RLIMIT_CPU` for the worker's life, in seconds (`--cpu-limit`).
    @Option(name: .customLong("cpu-limit"), help: "The most CPU time this process may use over its life, in seconds.")
    var cpuLimitSeconds: Int = 3600

    #if DEBUG
        /// Test only: the act to try once inside the sandbox (`--misbehave`), if any.
        @Option(
            help: ArgumentHelp("Test only: after entering the sandbox, do this forbidden act.", visibility: .private))
        var misbehave: Misbehaviour?
    #endif

    /// The directories beneath which the sandboxed worker may read files and list directories, and the files it
    /// may read (those missing are skipped); the open broker ends a worker that opens anything else. Measured with
    /// `strace -f` across the service's renders, text and checks, then by the broker across the whole test
    /// suite: after the warm-up, the worker opens font files (FreeType, fonts fontconfig matched: the system's
    /// and, as fontconfig's default configuration lists them, the user's), poppler-data's directories (CMaps for
    /// CJK text, on every open), glibc's iconv modules (poppler-glib converts a password to Latin-1) and GLib's
    /// charset aliases (on the first save). fontconfig's configuration and caches are read by the warm-up only.
    static var readableDirectories: [String] {
        var directories = [
            "/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/poppler",
            "/usr/lib/x86_64-linux-gnu/gconv", "/usr/lib/aarch64-linux-gnu/gconv",
            // fontconfig rereads its configuration and caches if they change while the worker runs (a font
            // package installed meanwhile): harmless to read, and a worker must not die of it.
            "/etc/fonts", "/var/cache/fontconfig",
            // GLib reads its charset aliases the first time it converts text to the locale's charset (a save).
            "/usr/lib/x86_64-linux-gnu/charset.alias", "/usr/lib/aarch64-linux-gnu/charset.alias",
        ]
        let environment = ProcessInfo.processInfo.environment
        if let home = environment["HOME"], home.hasPrefix("/") {
            directories += [home + "/.local/share/fonts", home + "/.fonts", home + "/.cache/fontconfig"]
        }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            directories.append(cache + "/fontconfig")
        }
        return directories
    }

    /// Enters the sandbox (unless `--no-sandbox`), then, in debug builds, does the act `--misbehave` names.
    /// Exits the process (status 70) when the seccomp filter cannot be installed; see the type's documentation.
    func enter() {
        if sandbox {
            Self.limitCPU(seconds: cpuLimitSeconds)
            Self.warmUp()
            Self.restrict()
        }
        #if DEBUG
            if let misbehave { misbehave.act() }
        #endif
    }

    /// Sets `RLIMIT_CPU`: `SIGXCPU` (which ends the process) after `seconds` of CPU time, `SIGKILL` 5 s later.
    /// The limit is over the worker's life; the pool's per-request deadline ends a long request much sooner.
    static func limitCPU(seconds: Int) {
        var limit = rlimit(rlim_cur: rlim_t(max(1, seconds)), rlim_max: rlim_t(max(1, seconds) + 5))
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit)
    }

    /// Opens, renders and reads the text of a tiny PDF in a standard font, so that GLib's types, fontconfig's
    /// configuration and caches, and FreeType are set up (with the opens that needs) before the sandbox.
    static func warmUp() {
        guard let document = try? PDFDocument(data: warmUpPDF) else { return }
        _ = try? document.renderPNG(pageAt: 0, dpi: 36)
        _ = try? document.text(ofPageAt: 0)
    }

    /// Applies Landlock, then the seccomp filter; says on standard error what could not be had.
    static func restrict() {
        let paths = readableDirectories.map { strdup($0) }
        defer { paths.forEach { free($0) } }
        let abi = paths.map { UnsafePointer($0) }.withUnsafeBufferPointer {
            CQuire_restrictFileSystem($0.baseAddress, Int32($0.count))
        }
        if abi < 0 {
            let reason = String(cString: strerror(errno))
            FileHandle.standardError.write(
                Data("quire-pdf worker: no Landlock (\(reason)); serving with the seccomp filter alone\n".utf8))
        }
        let filtered = paths.map { UnsafePointer($0) }.withUnsafeBufferPointer {
            CQuire_installSyscallFilter($0.baseAddress, Int32($0.count))
        }
        if filtered != 0 {
            let reason = String(cString: strerror(errno))
            let line = "quire-pdf worker: the seccomp filter could not be installed (\(reason)); refusing to serve\n"
            FileHandle.standardError.write(Data(line.utf8))
            Glibc.exit(70)
        }
    }

    /// A one-page PDF that writes a word in Helvetica, a standard font it does not embed (so fontconfig is used).
    /// Its cross-reference entries end with CR LF, the two-byte end of line the format allows besides "SP LF".
    static let warmUpPDF = Data(
        """
        %PDF-1.4
        1 0 obj
        << /Type /Catalog /Pages 2 0 R >>
        endobj
        2 0 obj
        << /Type /Pages /Kids [3 0 R] /Count 1 >>
        endobj
        3 0 obj
        << /Type /Page /Parent 2 0 R /MediaBox [0 0 72 36] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>
        endobj
        4 0 obj
        << /Length 35 >>
        stream
        BT /F1 12 Tf 10 10 Td (Quire) Tj ET
        endstream
        endobj
        5 0 obj
        << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>
        endobj
        xref
        0 6
        0000000000 65535 f\r
        0000000009 00000 n\r
        0000000058 00000 n\r
        0000000115 00000 n\r
        0000000239 00000 n\r
        0000000324 00000 n\r
        trailer
        << /Size 6 /Root 1 0 R >>
        startxref
        394
        %%EOF

        """.utf8)
}
