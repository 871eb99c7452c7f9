extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (the optional whitespace around a header's values).
    func trimmingWhitespace() -> SubSequence {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isWhitespace($0) }) else { return self[endIndex...] }
        let end = lastIndex(where: { !isWhitespace($0) })!
        return self[start...end]
    }
}
