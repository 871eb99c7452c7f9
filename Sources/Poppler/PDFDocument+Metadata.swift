import CPoppler
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PDFDocument {
    /// The Info-dictionary metadata. Setting it changes this instance; ``dataRepresentation()`` writes the change.
    /// A `nil` entry removes the entry; dates keep whole seconds.
    public var metadata: PDFMetadata {
        get {
            (try? withDocument { document in
                PDFMetadata(
                    title: GLibInterop.takeString(poppler_document_get_title(document)),
                    author: GLibInterop.takeString(poppler_document_get_author(document)),
                    subject: GLibInterop.takeString(poppler_document_get_subject(document)),
                    keywords: GLibInterop.takeString(poppler_document_get_keywords(document)),
                    creator: GLibInterop.takeString(poppler_document_get_creator(document)),
                    producer: GLibInterop.takeString(poppler_document_get_producer(document)),
                    creationDate: Self.date(poppler_document_get_creation_date_time(document)),
                    modificationDate: Self.date(poppler_document_get_modification_date_time(document))
                )
            }) ?? PDFMetadata()
        }
        set {
            try? withDocument { document in
                poppler_document_set_title(document, newValue.title)
                poppler_document_set_author(document, newValue.author)
                poppler_document_set_subject(document, newValue.subject)
                poppler_document_set_keywords(document, newValue.keywords)
                poppler_document_set_creator(document, newValue.creator)
                poppler_document_set_producer(document, newValue.producer)
                Self.withDateTime(newValue.creationDate) { poppler_document_set_creation_date_time(document, $0) }
                Self.withDateTime(newValue.modificationDate) {
                    poppler_document_set_modification_date_time(document, $0)
                }
            }
        }
    }

    /// Converts and releases a `GDateTime*`.
    private static func date(_ dateTime: OpaquePointer?) -> Date? {
        guard let dateTime else { return nil }
        defer { g_date_time_unref(dateTime) }
        let seconds = Double(g_date_time_to_unix(dateTime))
        let micro = Double(g_date_time_get_microsecond(dateTime)) / 1_000_000
        return Date(timeIntervalSince1970: seconds + micro)
    }

    /// Passes a UTC `GDateTime*` for `date` (or NULL for nil) to `body` and releases it.
    private static func withDateTime(_ date: Date?, _ body: (OpaquePointer?) -> Void) {
        guard let date else { return body(nil) }
        let dateTime = g_date_time_new_from_unix_utc(gint64(date.timeIntervalSince1970.rounded(.down)))
        defer { if let dateTime { g_date_time_unref(dateTime) } }
        body(dateTime)
    }
}
