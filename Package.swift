// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Quire",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Poppler", targets: ["Poppler"]),
        // The worker protocol's messages (a product so the fuzz package in Fuzz/ can import it).
        .library(name: "PDFWorkerWire", targets: ["PDFWorkerWire"]),
        .library(name: "CoordinationArbiter", targets: ["CoordinationArbiter"]),
        .library(name: "FileCoordination", targets: ["FileCoordination"]),
        .library(name: "FileCoordinationCompat", targets: ["FileCoordinationCompat"]),
        .library(name: "PDFTypes", targets: ["PDFTypes"]),
        .library(name: "DocumentModel", targets: ["DocumentModel"]),
        .library(name: "Documents", targets: ["Documents"]),
        .library(name: "StoreCore", targets: ["StoreCore"]),
        .library(name: "DocumentStore", targets: ["DocumentStore"]),
        .executable(name: "quire", targets: ["quire"]),
        .executable(name: "quire-pdf", targets: ["quire-pdf"]),
        .executable(name: "quire-store", targets: ["quire-store"]),
        .library(name: "StoreClient", targets: ["StoreClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The document-store service (DocumentStore): HTTP, configuration, catalog, hashing, metrics, logging.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Cluster mode: the catalog, the event log and the nodes' fan-out in a shared PostgreSQL.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        // NIOExtras' quiescing helper: the graceful stop of a server over a socket handed over by systemd.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The service's client (StoreClient: quire status, resolve, events, and the scenario tests).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // `.forUploading` snapshots of directories are zip archives (FileCoordination only).
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // `make docs`: the libraries' DocC documentation (a command plugin: nothing of it is linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // StoreClient's types and calls, generated from openapi.yaml into Sources/QuireAPI (committed; the
        // generator runs by hand and in `make check-generated`, never as a build plugin), and their runtime.
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        // The generated client's transport in StoreClient: AsyncHTTPClient, which the event feed uses as well.
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        // openapi.yaml read at run time: the request bodies' member rules (DocumentStore), and the schemas the
        // tests check. The generator resolves it already.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // poppler-glib + cairo (+ gio, linked by the modulemap: notes P2).
        .systemLibrary(
            name: "CPoppler",
            pkgConfig: "poppler-glib",
            providers: [.apt(["libpoppler-glib-dev", "libcairo2-dev"])]
        ),
        // A small C shim over libpng: libpng reports errors with longjmp, which Swift cannot catch.
        .target(
            name: "CPNG",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]
        ),
        // The PDF value types (errors, geometry, metadata, annotations): no C library, so that code that only
        // describes PDFs (the service, which parses none itself) links no poppler.
        .target(name: "PDFTypes"),
        .target(name: "Poppler", dependencies: ["PDFTypes", "CPoppler", "CPNG", "QuireSystem"]),
        // The Linux-only system calls Swift's Glibc module does not export (openat2, accept4, pipe2,
        // SO_PEERCRED), as swift-nio's CNIOLinux: one small C boundary.
        .target(name: "CQuireLinux"),
        // The one system-call layer every module uses: one EINTR loop, one error type (call, errno, path),
        // descriptors close-on-exec from their creation; glibc-only calls through CQuireLinux.
        .target(name: "QuireSystem", dependencies: ["CQuireLinux"]),
        // The messages between the service and its PDF worker processes (PDF value types, no poppler).
        .target(name: "PDFWorkerWire", dependencies: ["PDFTypes", "CQuireLinux", "QuireSystem"]),
        // The arbiter: a pure state machine (no Foundation, no Glibc, no I/O).
        .target(name: "CoordinationArbiter"),
        .target(
            name: "FileCoordination",
            dependencies: [
                "CoordinationArbiter", "CQuireLinux", "QuireSystem", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Apple's names (NSFileCoordinator, NSFilePresenter, NSFileAccessIntent) over the same machinery.
        .target(name: "FileCoordinationCompat", dependencies: ["FileCoordination"]),
        // Data providers, coordinated file providers, Document, FilePresenterCoordinator, conflicts, and the
        // PDF-engine seam (PDFEngine): no poppler.
        .target(name: "DocumentModel", dependencies: ["FileCoordination", "PDFTypes", "CQuireLinux", "QuireSystem"]),
        // DocumentModel with poppler in this process as its engine: what library users import.
        .target(name: "Documents", dependencies: ["DocumentModel", "PDFTypes", "Poppler"]),
        // The store's domain core: the document library, its domain values and errors (StoreError,
        // WritePrecondition), the catalog, event log, fan-out, locks and membership behind protocols with their
        // SQLite and PostgreSQL implementations, uploads, PDF workers, configuration and metrics. No HTTP module.
        .target(
            name: "StoreCore",
            dependencies: [
                "DocumentModel",
                "PDFTypes",
                "PDFWorkerWire",
                "CQuireLinux",
                "QuireSystem",
                "FileCoordination",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The store's HTTP service over StoreCore (which it re-exports): routes, problem details, middleware.
        .target(
            name: "DocumentStore",
            dependencies: [
                "StoreCore",
                "DocumentModel",
                "QuireAPI",
                "QuireAPICoding",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The repository's openapi.yaml (a symbolic link here), compiled in and served at /openapi.yaml; the
            // web page's files, compiled in and served at / and /assets/ (WebAsset lists them).
            resources: [
                .embedInCode("Resources/openapi.yaml"),
                .embedInCode("Resources/web/index.html"),
                .embedInCode("Resources/web/app.css"),
                .embedInCode("Resources/web/app.js"),
                .embedInCode("Resources/web/api.js"),
                .embedInCode("Resources/web/events.js"),
                .embedInCode("Resources/web/list.js"),
                .embedInCode("Resources/web/viewer.js"),
                .embedInCode("Resources/web/icon.svg"),
            ]
        ),
        // What `quire serve` and its supervisor (systemd) say to each other: readiness, status, watchdog, reload
        // and stop notifications (a pure state machine and its datagram driver), logs fit for the journal.
        .target(
            name: "Supervision",
            dependencies: ["QuireSystem", "CQuireLinux", .product(name: "Logging", package: "swift-log")]
        ),
        // The command line: arguments and help shared by both executables (no poppler here).
        .target(
            name: "QuireCommandLine",
            dependencies: ["QuireSystem", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The work behind quire's coordination commands: coordinated read/replace/move/remove, exec, watch.
        .target(name: "CoordinatedOperations", dependencies: ["FileCoordination", "CQuireLinux", "QuireSystem"]),
        // `quire`: starts without poppler, cairo or GLib; runs PDF commands by replacing itself with quire-pdf.
        .executableTarget(
            name: "quire",
            dependencies: [
                "CoordinatedOperations",
                "FileCoordination",
                "QuireCommandLine",
                "Supervision",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `quire-pdf`: the commands that need poppler; must be installed next to `quire`.
        .executableTarget(
            name: "quire-pdf",
            dependencies: [
                "Poppler",
                "PDFWorkerWire",
                "CQuireLinux",
                "QuireSystem",
                "QuireCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The service's HTTP API as openapi.yaml describes it: its schemas' types and a client of its operations,
        // generated by swift-openapi-generator into Generated/ and committed (`make generate-api` writes them again,
        // `make check-generated` fails when they are not what openapi.yaml gives).
        .target(
            name: "QuireAPI",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["openapi-generator-config.yaml"],
            // The generated files import OpenAPIRuntime and Foundation publicly in every file, and Swift 6.3
            // warns where a file uses neither (the generator silences that from Swift 6.4 on); nothing else here
            // is written by hand.
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])]
        ),
        // How the service and its client write the generated types as openapi.yaml asks (AbsentAsNull: required
        // members null, not left out; RFC 3339 dates with milliseconds). Written by hand, beside QuireAPI.
        .target(name: "QuireAPICoding"),
        // A typed client of the service's HTTP API (documents, conflicts, the event feed), on AsyncHTTPClient.
        .target(
            name: "StoreClient",
            dependencies: [
                "QuireAPI",
                "QuireAPICoding",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // `quire-store`: the commands that need the service stack (serve, status, resolve, events); must be
        // installed next to `quire`, which hands these commands to it.
        .executableTarget(
            name: "quire-store",
            dependencies: [
                "CoordinatedOperations",
                "DocumentStore",
                "FileCoordination",
                "StoreClient",
                "QuireAPICoding",
                "QuireCommandLine",
                "Supervision",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "CoordinationExample", dependencies: ["FileCoordination"], path: "Examples/CoordinationExample"),
        .executableTarget(name: "DocumentExample", dependencies: ["Documents"], path: "Examples/DocumentExample"),
        .testTarget(name: "PopplerTests", dependencies: ["Poppler", "CPoppler"]),
        .testTarget(name: "PDFWorkerWireTests", dependencies: ["PDFWorkerWire", "PDFTypes"]),
        .testTarget(name: "CoordinationArbiterTests", dependencies: ["CoordinationArbiter"]),
        .testTarget(name: "QuireSystemTests", dependencies: ["QuireSystem", "QuireTestSupport"]),
        .testTarget(name: "SupervisionTests", dependencies: ["Supervision", "QuireTestSupport"]),
        // A helper process for the cross-process tests (spawned by FileCoordinationTests, never shipped).
        .executableTarget(
            name: "CoordinationProbe", dependencies: ["FileCoordination", "FileCoordinationCompat", "QuireSystem"],
            path: "Tests/CoordinationProbe"),
        // A helper process for the versions-store tests: adds, lists and resolves versions (never shipped).
        .executableTarget(name: "VersionsProbe", dependencies: ["FileCoordination"], path: "Tests/VersionsProbe"),
        .testTarget(
            name: "FileCoordinationTests",
            dependencies: [
                "FileCoordination", "QuireSystem", "CoordinationProbe", "VersionsProbe",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // Wrappers written as Apple-platform code writes them, in a module of their own (never shipped).
        .target(name: "AppleStyleWrappers", dependencies: ["FileCoordinationCompat"], path: "Tests/AppleStyleWrappers"),
        .testTarget(name: "FileCoordinationCompatTests", dependencies: ["FileCoordinationCompat", "AppleStyleWrappers"]),
        // A helper process for the Documents tests (saves in a loop, opens documents; never shipped).
        .executableTarget(name: "DocumentProbe", dependencies: ["Documents"], path: "Tests/DocumentProbe"),
        .testTarget(name: "DocumentsTests", dependencies: ["Documents", "DocumentModel", "CQuireLinux", "DocumentProbe", "DocumentExample", "quire"]),
        // The command line, and the service's end-to-end scenarios (a real `quire serve` child process, other
        // processes changing its files, StoreClient watching).
        .testTarget(
            name: "quireTests",
            dependencies: [
                "quire", "quire-pdf", "quire-store", "StoreClient", "QuireAPICoding", "QuireTestSupport", "CQuireLinux",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
        // What several test targets share: a private PostgreSQL server the tests start.
        .target(
            name: "QuireTestSupport",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Support"
        ),
        // The store's domain core driven without HTTP: this target must never depend on DocumentStore or an HTTP
        // module (its boundary test checks StoreCore's sources for HTTP).
        .testTarget(
            name: "StoreCoreTests",
            dependencies: [
                "StoreCore",
                "DocumentModel",
                "QuireTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DocumentStoreTests",
            dependencies: [
                "DocumentStore",
                "QuireAPI",
                .product(name: "Yams", package: "Yams"),
                "StoreCore",
                "QuireTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
