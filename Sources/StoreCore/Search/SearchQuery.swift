/// A search as a person types it (`GET /search?q=`), parsed into what both index engines can run: words,
/// "phrases", `-exclusions`, `OR` between two terms, and `prefix*`.
///
/// Nothing of the text reaches an engine's query language as typed: a term is reduced to its tokens (runs of
/// letters and digits, lower-cased, as both engines' tokenizers split text), and each engine's query is written
/// from those tokens (``fts5Expression`` for SQLite FTS5, ``tsqueryText`` for PostgreSQL's `to_tsquery`). So FTS
/// syntax characters (`"`, `*`, `:`, `^`, `(`), and FTS5's `NEAR`, `AND`, `NOT`, are ordinary text or
/// separators, never operators.
///
/// Grammar: terms are separated by white space; `"…"` is a phrase (an unbalanced quote runs to the end);
/// `-` before a term excludes the pages that have it; `OR` (upper case) between two terms asks for either; `*`
/// after a word (not a phrase) matches the words it begins. Terms without `OR` between them must all be on the
/// page. A term without a letter or digit is dropped.
public struct SearchQuery: Sendable, Hashable {
    /// A word (one token), a phrase (several, in order), either possibly ending in a prefix.
    public struct Term: Sendable, Hashable {
        /// The tokens, lower-cased, each letters and digits only.
        public var tokens: [String]
        /// Whether the last token matches every word it begins.
        public var isPrefix: Bool

        /// A term.
        public init(tokens: [String], isPrefix: Bool = false) {
            self.tokens = tokens
            self.isPrefix = isPrefix
        }
    }

    /// Why a query cannot be run. Each description is a sentence for the person who typed it.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Longer than ``maximumLength`` UTF-8 bytes.
        case tooLong
        /// More than ``maximumTerms`` terms.
        case tooManyTerms
        /// No term to look for (empty, only punctuation, or only exclusions).
        case nothingToFind

        /// One sentence.
        public var description: String {
            switch self {
            case .tooLong:
                return "the query is longer than \(SearchQuery.maximumLength) bytes"
            case .tooManyTerms:
                return "the query has more than \(SearchQuery.maximumTerms) terms"
            case .nothingToFind:
                return "the query has no word to look for (words are letters and digits; an exclusion alone finds "
                    + "nothing)"
            }
        }
    }

    /// The longest query, in UTF-8 bytes.
    public static let maximumLength = 1024
    /// The most terms (words, phrases, exclusions) in one query.
    public static let maximumTerms = 32
    /// The longest token kept; longer ones are cut (no word in any language is this long).
    public static let maximumTokenLength = 64

    /// What must be on a page: every group, each group by one of its terms.
    public var groups: [[Term]]
    /// What must not be.
    public var exclusions: [Term]

    /// A parsed query.
    public init(groups: [[Term]], exclusions: [Term] = []) {
        self.groups = groups
        self.exclusions = exclusions
    }

    /// Parses `text`.
    /// - Throws: a ``Problem``.
    public init(parsing text: String) throws(Problem) {
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong }
        var items = Self.scan(text)
        guard items.count <= Self.maximumTerms * 2 else { throw .tooManyTerms }
        items = items.filter { item in
            if case .term(let term, _) = item { return !term.tokens.isEmpty }
            return true
        }
        var groups: [[Term]] = []
        var exclusions: [Term] = []
        var joinNext = false
        for item in items {
            switch item {
            case .or:
                joinNext = !groups.isEmpty
            case .term(let term, let excluded):
                if excluded {
                    exclusions.append(term)
                } else if joinNext, !groups.isEmpty {
                    groups[groups.count - 1].append(term)
                } else {
                    groups.append([term])
                }
                joinNext = false
            }
        }
        guard groups.reduce(0, { $0 + $1.count }) + exclusions.count <= Self.maximumTerms else {
            throw .tooManyTerms
        }
        guard !groups.isEmpty else { throw .nothingToFind }
        self.init(groups: groups, exclusions: exclusions)
    }

    private enum Item {
        case term(Term, excluded: Bool)
        case or
    }

    /// Splits the text into items: `OR`, and terms with their tokens.
    private static func scan(_ text: String) -> [Item] {
        var items: [Item] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            if characters[index].isWhitespace {
                index += 1
                continue
            }
            var excluded = false
            if characters[index] == "-", index + 1 < characters.count, !characters[index + 1].isWhitespace {
                excluded = true
                index += 1
            }
            if characters[index] == "\"" {
                let start = index + 1
                var end = start
                while end < characters.count, characters[end] != "\"" { end += 1 }
                items.append(.term(Term(tokens: tokens(of: characters[start..<end])), excluded: excluded))
                index = min(characters.count, end + 1)
                continue
            }
            let start = index
            while index < characters.count, !characters[index].isWhitespace, characters[index] != "\"" { index += 1 }
            let word = characters[start..<index]
            if !excluded, String(word) == "OR" {
                items.append(.or)
                continue
            }
            let isPrefix = word.last == "*"
            items.append(.term(Term(tokens: tokens(of: word), isPrefix: isPrefix), excluded: excluded))
        }
        return items
    }

    /// The runs of letters and digits of `characters`, lower-cased, each at most ``maximumTokenLength`` long.
    static func tokens(of characters: ArraySlice<Character>) -> [String] {
        var tokens: [String] = []
        var current = ""
        for character in characters {
            if character.isLetter || character.isNumber {
                if current.count < maximumTokenLength { current.append(character) }
            } else if !current.isEmpty {
                tokens.append(current.lowercased())
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current.lowercased()) }
        return tokens
    }

    /// The query in SQLite FTS5's syntax: each token in double quotes (a token holds no quote), phrases as one
    /// quoted string, prefixes with `*` after the quotes; groups in parentheses joined by `AND`, exclusions by
    /// `NOT`.
    public var fts5Expression: String {
        func render(_ term: Term) -> String {
            "\"" + term.tokens.joined(separator: " ") + "\"" + (term.isPrefix ? " *" : "")
        }
        var expression = groups.map { group in "(" + group.map(render).joined(separator: " OR ") + ")" }
            .joined(separator: " AND ")
        for term in exclusions { expression = "(" + expression + ") NOT " + render(term) }
        return expression
    }

    /// The query as the text of PostgreSQL's `to_tsquery('simple', …)`: each token in single quotes (a token holds
    /// no quote), phrases joined by `<->`, prefixes with `:*`; groups joined by `&`, their terms by `|`, exclusions
    /// with `& !`.
    public var tsqueryText: String {
        func render(_ term: Term) -> String {
            let lexemes = term.tokens.enumerated().map { index, token in
                "'" + token + "'" + (term.isPrefix && index == term.tokens.count - 1 ? ":*" : "")
            }
            return "(" + lexemes.joined(separator: " <-> ") + ")"
        }
        var parts = groups.map { group in "(" + group.map(render).joined(separator: " | ") + ")" }
        parts += exclusions.map { "!" + render($0) }
        return parts.joined(separator: " & ")
    }

    /// The tokens the query looks for, for the cursor's check that a page follows the same query.
    var canonicalText: String { fts5Expression }
}
