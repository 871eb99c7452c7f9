import Foundation
import Logging
import Supervision
import Testing

@Suite("Log lines: text, the journal's, JSON")
struct LogLineFormatTests {
    private func line(_ style: LogLineFormat.Style, level: Logger.Level = .warning, message: String = "slow body cut",
        metadata: Logger.Metadata = ["request": "42"]
    ) -> String {
        LogLineFormat(style: style).line(
            level: level, label: "quire.serve", source: "DocumentStore", message: message, metadata: metadata,
            time: "2026-11-28T10:00:00.000Z")
    }

    @Test("text: the time, level, label, metadata, source and message, as StreamLogHandler writes them")
    func text() {
        #expect(line(.text) == "2026-11-28T10:00:00.000Z warning quire.serve: request=42 [DocumentStore] slow body cut\n")
        #expect(LogLineFormat(style: .text).needsTime)
    }

    @Test("the journal's: a <N> priority prefix per line (sd-daemon.h's levels) and no time of its own")
    func journal() {
        #expect(line(.journal) == "<4>warning quire.serve: request=42 [DocumentStore] slow body cut\n")
        #expect(!LogLineFormat(style: .journal).needsTime)
        let priorities = Logger.Level.allCases.map(LogLineFormat.priority)
        #expect(priorities == [7, 7, 6, 5, 4, 3, 2])  // trace … critical
        for level in Logger.Level.allCases {
            #expect(line(.journal, level: level).hasPrefix("<\(LogLineFormat.priority(level))>\(level) "))
        }
    }

    @Test("JSON: one object per line that a JSON parser reads back, metadata nested and typed")
    func json() throws {
        let text = line(
            .json(journal: false), message: "a \"quoted\"\npath\\ \u{1B}[31m",
            metadata: ["request": "42", "files": ["a", "b"], "peer": ["pid": "7"]])
        #expect(text.hasSuffix("}\n") && text.dropLast().split(separator: "\n").count == 1)
        let object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["time"] as? String == "2026-11-28T10:00:00.000Z")
        #expect(object["level"] as? String == "warning")
        #expect(object["label"] as? String == "quire.serve")
        #expect(object["source"] as? String == "DocumentStore")
        #expect(object["message"] as? String == "a \"quoted\"\npath\\ \u{1B}[31m")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["request"] as? String == "42")
        #expect(metadata["files"] as? [String] == ["a", "b"])
        #expect((metadata["peer"] as? [String: String]) == ["pid": "7"])
        // Under the journal: the priority first, no time.
        let journal = line(.json(journal: true))
        #expect(journal.hasPrefix("<4>{\"level\":\"warning\""))
        #expect(!journal.contains("\"time\""))
    }

    @Test("hostile input: a newline or escape in a message or metadata cannot start a line or forge a priority")
    func oneLineEach() {
        let forged = "done\n<0>emerg quire.serve: [X] forged"
        for style in [LogLineFormat.Style.text, .journal, .json(journal: true), .json(journal: false)] {
            let text = line(style, message: forged, metadata: ["path": "a\nb\r\u{2028}c\u{1B}"])
            #expect(text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).count == 1, "\(text)")
            #expect(!text.dropLast().contains("\r") && !text.contains("\u{1B}") && !text.contains("\u{2028}"))
        }
        #expect(line(.journal, message: forged).contains("done\\n<0>emerg"))
    }
}
