import DocumentModel
import FileCoordination
import Foundation
import StoreCore

/// The JSON bodies of the document routes, as `openapi.yaml` describes them, made from the store's domain values
/// (``DocumentInfo``, ``ConflictReport``, ``KeptVersion``, ``DocumentRecord``) and read into them
/// (``AnnotationRequest/newAnnotation``).
public enum DocumentRepresentations {
    /// The encoder of these bodies: keys sorted, slashes as they are.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// `DocumentSummary`: one entry of `GET /documents`.
    public struct Summary: Codable, Sendable, Equatable {
        /// The document's id.
        public var id: String
        /// Its title, if the PDF has one.
        public var title: String?
        /// The number of pages.
        public var pageCount: Int
        /// Bytes of all files together.
        public var size: Int
        /// The document's validator in header form (its info's `ETag`, what a write names in `If-Match`).
        public var etag: String
        /// The document's version (one more with every change).
        public var version: Int64
        /// The entity tag of the document's content (`GET …/content`'s `ETag`) in header form.
        public var contentEtag: String
        /// `clean`, `dirty`, `conflict` or `deleted`.
        public var state: String
        /// When the entry last changed (RFC 3339).
        public var updatedAt: String

        /// The summary of a catalog record.
        public init(_ record: DocumentRecord) {
            id = record.id.rawValue
            title = record.title
            pageCount = record.pageCount
            size = record.size
            etag = record.validator.headerValue
            version = record.version
            contentEtag = record.etag.headerValue
            state = record.state.name
            updatedAt = timestamp(record.updatedAt)
        }

        enum CodingKeys: String, CodingKey {
            case id, title, pageCount, size, etag, version, contentEtag, state, updatedAt
        }

        /// Encodes `title` as null when absent (the schema requires the member).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(title, forKey: .title)
            try container.encode(pageCount, forKey: .pageCount)
            try container.encode(size, forKey: .size)
            try container.encode(etag, forKey: .etag)
            try container.encode(version, forKey: .version)
            try container.encode(contentEtag, forKey: .contentEtag)
            try container.encode(state, forKey: .state)
            try container.encode(updatedAt, forKey: .updatedAt)
        }
    }

    /// `DocumentList`.
    public struct List: Codable, Sendable, Equatable {
        /// The page's documents, oldest first (ties by id).
        public var documents: [Summary]
        /// The cursor of the next page (`GET /documents?cursor=`), null on the last page.
        public var next: String?

        /// A page of `documents`, followed by the page `next` names.
        public init(documents: [Summary], next: String?) {
            self.documents = documents
            self.next = next
        }

        enum CodingKeys: String, CodingKey { case documents, next }

        /// Encodes `next` as null on the last page.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(documents, forKey: .documents)
            try container.encode(next, forKey: .next)
        }
    }

    /// `Page`.
    public struct Page: Codable, Sendable, Equatable {
        /// The page number, from 1.
        public var number: Int
        /// Width and height in points.
        public var width, height: Double
        /// The page label, if the PDF defines one.
        public var label: String?

        /// The representation of a page's facts.
        public init(_ page: DocumentInfo.Page) {
            number = page.number
            width = page.width
            height = page.height
            label = page.label
        }

        enum CodingKeys: String, CodingKey { case number, width, height, label }

        /// Encodes `label` as null when absent.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(number, forKey: .number)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
            try container.encode(label, forKey: .label)
        }
    }

    /// `DocumentFile`.
    public struct File: Codable, Sendable, Equatable {
        /// The absolute path (it follows moves).
        public var path: String
        /// Its size in bytes.
        public var size: Int
        /// The entity tag of its content, in header form.
        public var etag: String

        /// The representation of a file's facts.
        public init(_ file: DocumentInfo.File) {
            path = file.path
            size = file.size
            etag = file.tag.headerValue
        }
    }

    /// `Metadata`: every member present, null when absent.
    public struct Metadata: Codable, Sendable, Equatable {
        /// The Info-dictionary strings.
        public var title, author, subject, keywords, creator, producer: String?
        /// The dates (RFC 3339).
        public var creationDate, modificationDate: String?

        /// The representation of a document's metadata.
        public init(_ metadata: DocumentMetadata) {
            title = metadata.title
            author = metadata.author
            subject = metadata.subject
            keywords = metadata.keywords
            creator = metadata.creator
            producer = metadata.producer
            creationDate = metadata.creationDate.map(timestamp)
            modificationDate = metadata.modificationDate.map(timestamp)
        }

        enum CodingKeys: String, CodingKey {
            case title, author, subject, keywords, creator, producer, creationDate, modificationDate
        }

        /// Encodes every member, null when absent.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(title, forKey: .title)
            try container.encode(author, forKey: .author)
            try container.encode(subject, forKey: .subject)
            try container.encode(keywords, forKey: .keywords)
            try container.encode(creator, forKey: .creator)
            try container.encode(producer, forKey: .producer)
            try container.encode(creationDate, forKey: .creationDate)
            try container.encode(modificationDate, forKey: .modificationDate)
        }
    }

    /// `DocumentDamage`: why a document is `damaged`.
    public struct Damage: Codable, Sendable, Equatable {
        /// The file that is not a readable PDF.
        public var file: String
        /// What is wrong with it.
        public var reason: String

        /// The damage of `file`, for `reason`.
        public init(file: String, reason: String) {
            self.file = file
            self.reason = reason
        }

        /// The representation of a document's damage.
        public init(_ damage: DocumentDamage) {
            self.init(file: damage.file, reason: damage.reason)
        }
    }

    /// `DocumentInfo`.
    public struct Info: Codable, Sendable, Equatable {
        /// The document's id.
        public var id: String
        /// The document's validator in header form: the info's `ETag`, what a write names in `If-Match`; it
        /// changes with every change of the document.
        public var etag: String
        /// The document's version: 1 when it entered the store, one more with every change.
        public var version: Int64
        /// The entity tag of the document's content (`GET …/content`'s `ETag`) in header form.
        public var contentEtag: String
        /// `upload` or `registered`.
        public var origin: String
        /// The number of pages.
        public var pageCount: Int
        /// Every page's number, size and label.
        public var pages: [Page]
        /// The first file's metadata (with unsaved edits).
        public var metadata: Metadata
        /// The files, in page order.
        public var files: [File]
        /// `clean`, `dirty`, `conflict`, `deleted` or `damaged`.
        public var state: String
        /// `deletion`, `modification` or null.
        public var conflict: String?
        /// Why the document is `damaged` (which file, what is wrong with it), or null.
        public var damage: Damage?
        /// Whether a file is encrypted.
        public var encrypted: Bool
        /// Bytes of all files together.
        public var size: Int
        /// When the document entered the store and last changed (RFC 3339).
        public var createdAt, updatedAt: String

        /// The representation of a document's info.
        public init(_ info: DocumentInfo) {
            id = info.id.rawValue
            etag = info.validator.headerValue
            version = info.version
            contentEtag = info.contentTag.headerValue
            origin = info.origin.rawValue
            pageCount = info.pageCount
            pages = info.pages.map(Page.init)
            metadata = Metadata(info.metadata)
            files = info.files.map(File.init)
            state = info.state.name
            conflict = info.conflict?.rawValue
            damage = info.damage.map(Damage.init)
            encrypted = info.isEncrypted
            size = info.size
            createdAt = timestamp(info.createdAt)
            updatedAt = timestamp(info.updatedAt)
        }

        enum CodingKeys: String, CodingKey {
            case id, etag, version, contentEtag, origin, pageCount, pages, metadata, files, state, conflict, damage,
                encrypted, size, createdAt, updatedAt
        }

        /// Encodes `conflict` as null when absent.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(etag, forKey: .etag)
            try container.encode(version, forKey: .version)
            try container.encode(contentEtag, forKey: .contentEtag)
            try container.encode(origin, forKey: .origin)
            try container.encode(pageCount, forKey: .pageCount)
            try container.encode(pages, forKey: .pages)
            try container.encode(metadata, forKey: .metadata)
            try container.encode(files, forKey: .files)
            try container.encode(state, forKey: .state)
            try container.encode(conflict, forKey: .conflict)
            try container.encode(damage, forKey: .damage)
            try container.encode(encrypted, forKey: .encrypted)
            try container.encode(size, forKey: .size)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(updatedAt, forKey: .updatedAt)
        }
    }

    /// `ConflictReport`.
    public struct ConflictReport: Codable, Sendable, Equatable {
        /// The conflict itself.
        public struct Conflict: Codable, Sendable, Equatable {
            /// `deletion` or `modification`.
            public var type: String
            /// The file in conflict.
            public var file: String
            /// The size of the file as it is on disk now, when it exists and can be read (the other side of a
            /// modification conflict: the document holds the version its edits were made on).
            public var fileSize: Int?
            /// The entity tag of the file as it is on disk now, when it exists and can be read.
            public var fileEtag: String?

            /// Makes a conflict; the facts of the file on disk are added when it can be read.
            public init(type: String, file: String, fileSize: Int? = nil, fileEtag: String? = nil) {
                self.type = type
                self.file = file
                self.fileSize = fileSize
                self.fileEtag = fileEtag
            }

            /// The representation of a conflict.
            public init(_ conflict: StoreCore.ConflictReport.Conflict) {
                self.init(
                    type: conflict.type.rawValue, file: conflict.file, fileSize: conflict.fileSize,
                    fileEtag: conflict.fileTag?.headerValue)
            }
        }

        /// The document's id.
        public var document: String
        /// The document's state.
        public var state: String
        /// The conflict, or null.
        public var conflict: Conflict?

        /// The representation of a conflict report.
        public init(_ report: StoreCore.ConflictReport) {
            document = report.document.rawValue
            state = report.state.name
            conflict = report.conflict.map(Conflict.init)
        }

        enum CodingKeys: String, CodingKey { case document, state, conflict }

        /// Encodes `conflict` as null when absent.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(document, forKey: .document)
            try container.encode(state, forKey: .state)
            try container.encode(conflict, forKey: .conflict)
        }
    }

    /// `DocumentVersion`: a version kept of one of a document's files.
    public struct Version: Codable, Sendable, Equatable {
        /// The version's identifier (`POST /documents/{id}/versions/{version}/restore` names it).
        public var id: String
        /// The document file it is a version of.
        public var file: String
        /// When its contents were kept (RFC 3339).
        public var modificationDate: String
        /// Whether it is a conflict version (the side a conflict resolution dropped).
        public var isConflict: Bool
        /// Whether the conflict is marked resolved (true for a version that is not a conflict version).
        public var isResolved: Bool
        /// Bytes of its contents.
        public var size: Int
        /// The name shown for it: the file's name.
        public var localizedName: String

        /// The representation of a kept version.
        public init(_ kept: KeptVersion) {
            let version = kept.version
            id = version.id
            file = version.itemURL.path
            modificationDate = timestamp(version.modificationDate ?? Date(timeIntervalSince1970: 0))
            isConflict = version.isConflict
            isResolved = version.isResolved
            size = kept.size
            localizedName = version.localizedName ?? version.itemURL.lastPathComponent
        }
    }

    /// `VersionList`: the body of `GET /documents/{id}/versions`.
    public struct VersionList: Codable, Sendable, Equatable {
        /// The document's id.
        public var document: String
        /// Its versions, oldest first.
        public var versions: [Version]
    }

    /// `RegisterRequest`.
    public struct RegisterRequest: Codable, Sendable {
        /// Paths of PDFs under configured roots, in page order.
        public var files: [String]
    }

    /// `AnnotationRequest`.
    public struct AnnotationRequest: Codable, Sendable {
        /// The rectangle, in points.
        public struct Rect: Codable, Sendable {
            /// Origin and size.
            public var x, y, width, height: Double
        }

        /// `note` or `highlight`.
        public var kind: String
        /// The page number, from 1.
        public var page: Int
        /// Where it goes.
        public var rect: Rect
        /// Its text.
        public var contents: String?

        /// The annotation the request asks for (the library checks its members).
        public var newAnnotation: NewAnnotation {
            NewAnnotation(
                kind: kind, page: page, x: rect.x, y: rect.y, width: rect.width, height: rect.height,
                contents: contents)
        }
    }

    /// `ResolveRequest`.
    public struct ResolveRequest: Codable, Sendable {
        /// `reload`, `save` or `close`.
        public var resolution: String
    }
}

/// RFC 3339 in UTC with milliseconds, as the event log writes dates.
package func timestamp(_ date: Date) -> String {
    date.formatted(StoreEvent.timestampFormat)
}
