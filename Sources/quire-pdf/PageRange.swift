import QuireCommandLine

/// A 1-based page selection such as `1-3,7,10-`, as typed on the command line.
struct PageRange: Equatable {
    /// Inclusive bounds; `upper == nil` means "to the last page".
    let parts: [(lower: Int, upper: Int?)]

    static func == (left: PageRange, right: PageRange) -> Bool {
        left.parts.elementsEqual(right.parts) { $0.lower == $1.lower && $0.upper == $1.upper }
    }

    /// Parses a comma-separated list of pages and ranges; nil if it is malformed.
    static func parse(_ text: String) -> PageRange? {
        var parts: [(Int, Int?)] = []
        for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = piece.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let first = bounds.first, let lower = Int(first), lower >= 1 else { return nil }
            if bounds.count == 1 {
                parts.append((lower, lower))
            } else if bounds[1].isEmpty {
                parts.append((lower, nil))
            } else {
                guard let upper = Int(bounds[1]), upper >= lower else { return nil }
                parts.append((lower, upper))
            }
        }
        return parts.isEmpty ? nil : PageRange(parts: parts)
    }

    /// The zero-based page indexes when every part has an upper bound (no page count needed), else nil.
    /// Pages beyond the document are reported by the extractor as `PDFError.pageOutOfRange`.
    var closedIndexes: [Int]? {
        var result: [Int] = []
        for (lower, upper) in parts {
            guard let upper else { return nil }
            result.append(contentsOf: (lower - 1)..<upper)
        }
        return result
    }

    /// The zero-based page indexes, in the order given.
    /// - Throws: `CommandFailure` (usage) if a page is beyond `pageCount`.
    func indexes(pageCount: Int, file: String) throws -> [Int] {
        var result: [Int] = []
        for (lower, upper) in parts {
            let last = upper ?? pageCount
            guard lower <= pageCount, last <= pageCount else {
                throw CommandFailure(
                    "\(file): page \(max(lower, last)) does not exist (the document has \(pageCount) pages)",
                    exitCode: CommandFailure.usage)
            }
            result.append(contentsOf: (lower - 1)..<last)
        }
        return result
    }
}
