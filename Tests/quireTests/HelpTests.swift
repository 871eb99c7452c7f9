import Testing

@Suite("quire --help")
struct HelpTests {
    @Test("inspect --help is pinned")
    func inspectHelp() throws {
        let result = try QuireProcess.run(["inspect", "--help"])
        #expect(result.status == 0)
        #expect(result.output == Self.inspectHelp)
    }

    @Test("the root command lists its subcommands")
    func rootHelp() throws {
        let result = try QuireProcess.run(["--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("inspect"))
        #expect(result.output.contains("USAGE: quire <subcommand>"))
    }

    static let inspectHelp = """
        OVERVIEW: Show a PDF's pages, sizes, labels, metadata and permissions, its text, or a rendered
        page.

        Exit codes: 0 success; 64 bad usage (page, range or resolution); 65 not a usable PDF (empty,
        damaged, invalid); 66 input unreadable; 70 internal failure; 73 output not writable; 77 encrypted
        (password missing or wrong).

        USAGE: quire inspect <file> [--password <password>] [--json] [--text] [--pages <range>] [--render <page>] [--dpi <n>] [--output <out.png>] [--jobs <n>]

        ARGUMENTS:
          <file>                  The PDF file to inspect.

        OPTIONS:
          --password <password>   The user or owner password of an encrypted PDF.
          --json                  Print one JSON document instead of text.
          --text                  Print the text of the pages (each page ends with a form feed).
          --pages <range>         With --text: the pages to print, 1-based, such as 1-3,7,10- (default:
                                  all).
          --render <page>         Render this page (1-based) to the PNG file given by -o.
          --dpi <n>               The resolution for --render, in dots per inch (at most 1200). (default:
                                  150.0)
          -o, --output <out.png>  The PNG file --render writes.
          --jobs <n>              How many threads extract text (default: one per processor).
          --version               Show the version.
          -h, --help              Show help information.


        """
}
