import Foundation
import NIOCore
import StoreCore

extension DocumentLibrary {
    /// The content of an open document that needs no password, as a response body, and its tag, at once: what
    /// ``ContentFastPathHandler`` serves on the event loop (``cachedContent(_:as:)``); nil when the route must
    /// answer.
    package func cachedContent(_ id: DocumentID) -> (ByteBuffer, EntityTag)? {
        cachedContent(id, as: Self.contentBody)
    }

    /// A document's content as a response body. The library keeps the body made of a version with that version's
    /// answers, so the fast path and the content route share one buffer per version.
    static func contentBody(_ bytes: Data) -> ByteBuffer {
        ByteBuffer(bytes: bytes)
    }
}
