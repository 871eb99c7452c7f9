import DocumentStore
import Testing

/// The query syntax of `GET /search`, parsed and written in each engine's language: pure, no database.
@Suite("Search query")
struct SearchQueryTests {
    typealias Term = SearchQuery.Term

    @Test("words, phrases, exclusions, OR and prefixes parse into groups and exclusions")
    func parsing() throws {
        let query = try SearchQuery(parsing: "Red \"big fox\" -cat herring OR whale* -\"old dog\"")
        #expect(
            query.groups == [
                [Term(tokens: ["red"])], [Term(tokens: ["big", "fox"])],
                [Term(tokens: ["herring"]), Term(tokens: ["whale"], isPrefix: true)],
            ])
        #expect(query.exclusions == [Term(tokens: ["cat"]), Term(tokens: ["old", "dog"])])
    }

    @Test("each engine's query is written from tokens only: quoted, never the typed syntax")
    func rendering() throws {
        let query = try SearchQuery(parsing: "NEAR(a b) col:x* -\"q\" y OR z")
        // "NEAR(a" is one word of two tokens: a phrase.
        #expect(
            query.fts5Expression
                == "((\"near a\") AND (\"b\") AND (\"col x\" *) AND (\"y\" OR \"z\")) NOT \"q\"")
        #expect(
            query.tsqueryText
                == "(('near' <-> 'a')) & (('b')) & (('col' <-> 'x':*)) & (('y') | ('z')) & !('q')")
    }

    @Test("an empty query, punctuation only, exclusions only, too long or too many terms is refused with a reason")
    func problems() {
        for text in ["", "   ", "\"\"", "* : ^ ( )", "-a -b", "OR", "-\"x y\""] {
            #expect(throws: SearchQuery.Problem.nothingToFind, "\(text)") { try SearchQuery(parsing: text) }
        }
        #expect(throws: SearchQuery.Problem.tooLong) {
            try SearchQuery(parsing: String(repeating: "a", count: SearchQuery.maximumLength + 1))
        }
        #expect(throws: SearchQuery.Problem.tooManyTerms) {
            try SearchQuery(parsing: (0..<40).map { "w\($0)" }.joined(separator: " "))
        }
    }

    @Test("an unbalanced quote runs to the end; OR at the edges, a lone dash and long tokens are harmless")
    func edges() throws {
        #expect(try SearchQuery(parsing: "a \"b c").groups == [[Term(tokens: ["a"])], [Term(tokens: ["b", "c"])]])
        #expect(try SearchQuery(parsing: "OR a OR").groups == [[Term(tokens: ["a"])]])
        #expect(try SearchQuery(parsing: "- a").groups == [[Term(tokens: ["a"])]])
        let long = try SearchQuery(parsing: String(repeating: "x", count: 500))
        #expect(long.groups[0][0].tokens[0].count == SearchQuery.maximumTokenLength)
    }
}
