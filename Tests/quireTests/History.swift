import Foundation
import QuireTestSupport

/// A scripted history of requests to the store, made by a seeded generator: uploads, registrations, edits with
/// fresh, stale and missing validators, saves, PUTs, rewrites of a file by a program that does not coordinate,
/// resolutions and deletions. Documents are named by the order they were made in, so that one history runs the
/// same against any store (one node, or a cluster with each request sent to a random node).
struct History: Sendable, CustomStringConvertible {
    /// Which validator a write sends in `If-Match`.
    enum Validator: String, Sendable, Hashable {
        /// The document's validator as last seen.
        case fresh
        /// One it had before its last change (a made-up old one when there was none).
        case stale
        /// No `If-Match`.
        case missing
    }

    /// One request, or one program's write.
    enum Step: Sendable, Hashable, CustomStringConvertible {
        case upload(fixture: String)
        case register(fixture: String)
        case retitle(document: Int, Validator)
        case annotate(document: Int, Validator)
        case save(document: Int, Validator)
        case put(document: Int, fixture: String, Validator)
        /// A program that does not coordinate writes the fixture's bytes over the document's (first) file.
        case rewrite(document: Int, fixture: String)
        case resolve(document: Int, resolution: String, Validator)
        case delete(document: Int, Validator)

        var description: String {
            switch self {
            case .upload(let fixture): "upload \(fixture)"
            case .register(let fixture): "register \(fixture)"
            case .retitle(let document, let validator): "retitle #\(document) (\(validator.rawValue))"
            case .annotate(let document, let validator): "annotate #\(document) (\(validator.rawValue))"
            case .save(let document, let validator): "save #\(document) (\(validator.rawValue))"
            case .put(let document, let fixture, let validator): "put \(fixture) into #\(document) (\(validator.rawValue))"
            case .rewrite(let document, let fixture): "a program rewrites #\(document) with \(fixture)"
            case .resolve(let document, let resolution, let validator):
                "resolve #\(document) by \(resolution) (\(validator.rawValue))"
            case .delete(let document, let validator): "delete #\(document) (\(validator.rawValue))"
            }
        }
    }

    /// The PDFs a history writes (valid, distinct, one to four pages).
    static let fixtures = ["one-page.pdf", "mixed-sizes.pdf", "page-labels.pdf", "metadata.pdf"]

    let seed: UInt64
    let steps: [Step]

    /// The history of `seed`, `length` steps long.
    init(seed: UInt64, length: Int = 40) {
        self.seed = seed
        var random = SeededGenerator(seed: seed)
        var documents = 0
        var steps: [Step] = []
        func validator() -> Validator {
            let roll = random.below(10)
            return roll < 6 ? .fresh : roll < 8 ? .stale : .missing
        }
        func fixture() -> String { Self.fixtures[random.below(Self.fixtures.count)] }
        while steps.count < length {
            let roll = documents == 0 ? 0 : random.below(100)
            let document = documents == 0 ? 0 : random.below(documents)
            switch roll {
            case 0..<8:
                steps.append(.upload(fixture: fixture()))
                documents += 1
            case 8..<16:
                steps.append(.register(fixture: fixture()))
                documents += 1
            case 16..<34: steps.append(.retitle(document: document, validator()))
            case 34..<42: steps.append(.annotate(document: document, validator()))
            case 42..<54: steps.append(.save(document: document, validator()))
            case 54..<64: steps.append(.put(document: document, fixture: fixture(), validator()))
            case 64..<80: steps.append(.rewrite(document: document, fixture: fixture()))
            case 80..<94:
                let resolution = ["reload", "save", "close"][random.below(3)]
                steps.append(.resolve(document: document, resolution: resolution, validator()))
            default: steps.append(.delete(document: document, validator()))
            }
        }
        self.steps = steps
    }

    var description: String {
        "history of seed \(seed):\n" + steps.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
    }
}
