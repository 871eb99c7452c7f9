// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for Quire, a package of their own so that `make test` never builds them. Build and run them
// with `make fuzz` (from the repository's root), which passes `-sanitize=fuzzer,address` and `-parse-as-library`.
let package = Package(
    name: "QuireFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Quire", path: "..")],
    targets: [
        // The worker protocol's decoders: never a crash, and what decodes re-encodes to the same value.
        .executableTarget(
            name: "FuzzWire",
            dependencies: [
                .product(name: "PDFWorkerWire", package: "Quire"), .product(name: "PDFTypes", package: "Quire"),
            ]
        ),
        // The PDF open/info/text path of the Poppler wrapper (and a tiny render).
        .executableTarget(
            name: "FuzzPDF",
            dependencies: [.product(name: "Poppler", package: "Quire")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
