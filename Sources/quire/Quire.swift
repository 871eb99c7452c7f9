import ArgumentParser

/// The `quire` command: PDF inspection and, as the project grows, file coordination and the document store.
@main
struct Quire: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire",
        abstract: "Inspect PDFs and work with files that other programs change at the same time.",
        version: "0.1.0",
        subcommands: [Inspect.self]
    )
}
