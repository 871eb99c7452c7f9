import ArgumentParser

/// The arguments and help of `quire inspect`, shared by the two executables: `quire` parses them (so help and
/// usage errors never load poppler) and hands the work to `quire-pdf`, which parses the same arguments again
/// and does it.
public struct InspectArguments: ParsableArguments {
    /// The configuration of the `inspect` subcommand in both executables.
    public static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a PDF's pages, sizes, labels, metadata and permissions, its text, or a rendered page.",
        discussion: """
            Exit codes: 0 success; 64 bad usage (page, range or resolution); 65 not a usable PDF (empty, damaged, \
            invalid); 66 input unreadable; 70 internal failure; 73 output not writable; 77 encrypted (password \
            missing or wrong).
            """
    )

    @Argument(help: "The PDF file to inspect.")
    public var file: String

    @Option(help: "The user or owner password of an encrypted PDF.")
    public var password: String?

    @Flag(help: "Print one JSON document instead of text.")
    public var json = false

    @Flag(help: "Print the text of the pages (each page ends with a form feed).")
    public var text = false

    @Option(help: ArgumentHelp("With --text: the pages to print, 1-based, such as 1-3,7,10- (default: all).", valueName: "range"))
    public var pages: String?

    @Option(help: ArgumentHelp("Render this page (1-based) to the PNG file given by -o.", valueName: "page"))
    public var render: Int?

    @Option(help: ArgumentHelp("The resolution for --render, in dots per inch (at most 1200).", valueName: "n"))
    public var dpi: Double = 150

    @Option(name: .shortAndLong, help: ArgumentHelp("The PNG file --render writes.", valueName: "out.png"))
    public var output: String?

    @Option(help: ArgumentHelp("How many threads extract text (default: one per processor).", valueName: "n"))
    public var jobs: Int?

    /// Makes empty arguments (ArgumentParser fills them in).
    public init() {}
}
