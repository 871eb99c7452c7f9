// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Quire",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Poppler", targets: ["Poppler"]),
        .library(name: "CoordinationArbiter", targets: ["CoordinationArbiter"]),
        .library(name: "FileCoordination", targets: ["FileCoordination"]),
        .library(name: "FileCoordinationCompat", targets: ["FileCoordinationCompat"]),
        .library(name: "Documents", targets: ["Documents"]),
        .executable(name: "quire", targets: ["quire"]),
        .executable(name: "quire-pdf", targets: ["quire-pdf"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
        .target(name: "Poppler", dependencies: ["CPoppler", "CPNG"]),
        // The arbiter: a pure state machine (no Foundation, no Glibc, no I/O).
        .target(name: "CoordinationArbiter"),
        .target(name: "FileCoordination", dependencies: ["CoordinationArbiter"]),
        // Apple's names (NSFileCoordinator, NSFilePresenter, NSFileAccessIntent) over the same machinery.
        .target(name: "FileCoordinationCompat", dependencies: ["FileCoordination"]),
        // Data providers, coordinated file providers, Document, FilePresenterCoordinator, conflicts.
        .target(name: "Documents", dependencies: ["FileCoordination", "Poppler"]),
        // The command line: arguments and help shared by both executables (no poppler here).
        .target(
            name: "QuireCommandLine",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The work behind quire's coordination commands: coordinated read/replace/move/remove, exec, watch.
        .target(name: "CoordinatedOperations", dependencies: ["FileCoordination"]),
        // `quire`: starts without poppler, cairo or GLib; runs PDF commands by replacing itself with quire-pdf.
        .executableTarget(
            name: "quire",
            dependencies: [
                "CoordinatedOperations",
                "FileCoordination",
                "QuireCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `quire-pdf`: the commands that need poppler; must be installed next to `quire`.
        .executableTarget(
            name: "quire-pdf",
            dependencies: [
                "Poppler",
                "QuireCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "CoordinationExample", dependencies: ["FileCoordination"], path: "Examples/CoordinationExample"),
        .executableTarget(name: "DocumentExample", dependencies: ["Documents"], path: "Examples/DocumentExample"),
        .testTarget(name: "PopplerTests", dependencies: ["Poppler", "CPoppler"]),
        .testTarget(name: "CoordinationArbiterTests", dependencies: ["CoordinationArbiter"]),
        // A helper process for the cross-process tests (spawned by FileCoordinationTests, never shipped).
        .executableTarget(name: "CoordinationProbe", dependencies: ["FileCoordination"], path: "Tests/CoordinationProbe"),
        .testTarget(name: "FileCoordinationTests", dependencies: ["FileCoordination", "CoordinationProbe"]),
        .testTarget(name: "FileCoordinationCompatTests", dependencies: ["FileCoordinationCompat"]),
        // A helper process for the Documents tests (saves in a loop, opens documents; never shipped).
        .executableTarget(name: "DocumentProbe", dependencies: ["Documents"], path: "Tests/DocumentProbe"),
        .testTarget(name: "DocumentsTests", dependencies: ["Documents", "DocumentProbe", "DocumentExample", "quire"]),
        .testTarget(name: "quireTests", dependencies: ["quire", "quire-pdf"]),
    ],
    swiftLanguageModes: [.v6]
)
