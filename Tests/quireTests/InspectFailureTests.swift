import Foundation
import Testing

/// Every failure is one line on standard error, nothing on standard output, and a documented exit code.
@Suite("quire inspect failures")
struct InspectFailureTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let status: Int32
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let output = FileManager.default.temporaryDirectory.appendingPathComponent("quire-failure.png").path

    static let cases: [Case] = [
        Case(arguments: ["inspect", QuireProcess.fixture("empty.pdf")], status: 65, message: "empty"),
        Case(arguments: ["inspect", QuireProcess.fixture("truncated.pdf")], status: 65, message: "damaged"),
        Case(arguments: ["inspect", QuireProcess.fixture("truncated-tail.pdf")], status: 65, message: "damaged"),
        Case(arguments: ["inspect", QuireProcess.fixture("not-a-pdf.pdf")], status: 65, message: "not a PDF"),
        Case(arguments: ["inspect", "--text", QuireProcess.fixture("not-a-pdf.pdf")], status: 65, message: "damaged"),
        Case(arguments: ["inspect", QuireProcess.fixture("encrypted-aes256.pdf")], status: 77, message: "--password"),
        Case(arguments: ["inspect", "--password", "", QuireProcess.fixture("encrypted-aes256.pdf")], status: 77, message: "encrypted"),
        Case(arguments: ["inspect", "--password", "x", QuireProcess.fixture("encrypted-rc4-128.pdf")], status: 77, message: "encrypted"),
        Case(arguments: ["inspect", "--text", "--password", "", QuireProcess.fixture("encrypted-rc4-128.pdf")], status: 77, message: "encrypted"),
        Case(arguments: ["inspect", "/nonexistent/quire.pdf"], status: 66, message: "cannot read"),
        Case(arguments: ["inspect", "--render", "2", "-o", output, QuireProcess.fixture("one-page.pdf")], status: 64, message: "page 2 does not exist"),
        Case(arguments: ["inspect", "--render", "0", "-o", output, QuireProcess.fixture("one-page.pdf")], status: 64, message: "page 0 does not exist"),
        Case(arguments: ["inspect", "--render", "1", "--dpi", "0", "-o", output, QuireProcess.fixture("one-page.pdf")], status: 64, message: "resolution"),
        Case(arguments: ["inspect", "--render", "1", "--dpi=-5", "-o", output, QuireProcess.fixture("one-page.pdf")], status: 64, message: "resolution"),
        Case(arguments: ["inspect", "--render", "1", "--dpi", "5000", "-o", output, QuireProcess.fixture("one-page.pdf")], status: 64, message: "at most 1200"),
        Case(arguments: ["inspect", "--render", "1", QuireProcess.fixture("one-page.pdf")], status: 64, message: "-o"),
        Case(arguments: ["inspect", "--render", "1", "-o", "/nonexistent/dir/out.png", QuireProcess.fixture("one-page.pdf")], status: 73, message: "cannot write"),
        Case(arguments: ["inspect", "--text", "--pages", "3-1", QuireProcess.fixture("hundred-pages.pdf")], status: 64, message: "--pages"),
        Case(arguments: ["inspect", "--text", "--pages", "abc", QuireProcess.fixture("hundred-pages.pdf")], status: 64, message: "--pages"),
        Case(arguments: ["inspect", "--text", "--pages", "99-101", QuireProcess.fixture("hundred-pages.pdf")], status: 64, message: "page 101 does not exist"),
        Case(arguments: ["inspect", "--text", "--jobs", "0", QuireProcess.fixture("one-page.pdf")], status: 64, message: "--jobs"),
    ]

    @Test("each failure gives one line on stderr and its exit code", arguments: cases)
    func failure(_ testCase: Case) throws {
        let result = try QuireProcess.run(testCase.arguments)
        #expect(result.status == testCase.status, "stderr: \(result.standardError)")
        #expect(result.errorLines.count == 1, "stderr: \(result.standardError)")
        #expect(result.standardError.hasPrefix("quire: error: "))
        #expect(result.standardError.contains(testCase.message))
        #expect(result.standardOutput.isEmpty)
    }

    @Test("broken files that poppler repairs print nothing on stderr", arguments: ["broken-xref.pdf", "bad-xref-offset.pdf"])
    func repairedIsSilent(name: String) throws {
        let result = try QuireProcess.run(["inspect", "--text", QuireProcess.fixture(name)])
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        #expect(result.output.contains("Hello from page one."))
    }
}
