import DocumentModel
import FileCoordination
import Foundation
import QuireAPI
import QuireAPICoding
import StoreCore

/// The JSON bodies of the routes: the types swift-openapi-generator makes from `openapi.yaml` (QuireAPI's
/// `Components.Schemas`), made here from the store's domain values (``DocumentInfo``, ``DocumentRecord``,
/// ``ConflictReport``, ``KeptVersion``, ``SearchPage``, ``NodeRecord``) and written by ``encode(_:)``. No schema
/// is written out a second time by hand: a member the spec adds is a compile error here until it is filled in.
public enum DocumentRepresentations {
    /// The encoder of these bodies: keys sorted, slashes as they are, dates in RFC 3339 in UTC with milliseconds
    /// (as the event log writes them).
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(timestamp(date))
        }
        return encoder
    }()

    /// The JSON of a body: its members that are nil written as null (`AbsentAsNull`), as the schemas require
    /// (`DocumentInfo.conflict`, `DocumentList.next`, `SearchHit.page`, …), which the generated types would leave
    /// out; its dates as ``timestamp(_:)`` writes them. With `nullMembers`, only the absent members of those names
    /// are written as null, and the others left out (the schema's nullable members, for one whose other optional
    /// members are never null).
    /// - Throws: `EncodingError` when a member cannot be encoded (a non-finite number).
    public static func encode(_ body: some Encodable, nullMembers: Set<String>? = nil) throws -> Data {
        try encoder.encode(AbsentAsNull(body, datesAs: timestamp, nullMembers: nullMembers))
    }
}

extension Components.Schemas.DocumentState {
    /// The state as the API names it.
    init(_ state: StoreCore.DocumentState) {
        switch state {
        case .clean: self = .clean
        case .dirty: self = .dirty
        case .conflict: self = .conflict
        case .deleted: self = .deleted
        case .damaged: self = .damaged
        }
    }
}

extension Components.Schemas.ConflictType {
    /// The conflict's type as the API names it.
    init(_ type: StoreCore.DocumentState.ConflictType) {
        switch type {
        case .deletion: self = .deletion
        case .modification: self = .modification
        }
    }
}

extension Components.Schemas.DocumentSummary {
    /// `DocumentSummary`, one entry of `GET /documents`, of a catalog record.
    init(_ record: DocumentRecord) {
        self.init(
            id: record.id.rawValue, title: record.title, pageCount: record.pageCount, size: record.size,
            etag: record.validator.headerValue, version: record.version, contentEtag: record.etag.headerValue,
            state: .init(record.state), updatedAt: record.updatedAt)
    }
}

extension Components.Schemas.Metadata {
    /// `Metadata` of a document's metadata (every member present, null when absent).
    init(_ metadata: DocumentMetadata) {
        self.init(
            title: metadata.title, author: metadata.author, subject: metadata.subject, keywords: metadata.keywords,
            creator: metadata.creator, producer: metadata.producer, creationDate: metadata.creationDate,
            modificationDate: metadata.modificationDate)
    }
}

extension Components.Schemas.DocumentInfo {
    /// `DocumentInfo` of a document's info.
    init(_ info: StoreCore.DocumentInfo) {
        let conflict: ConflictPayload? =
            switch info.conflict {
            case .deletion: .deletion
            case .modification: .modification
            case nil: nil
            }
        self.init(
            id: info.id.rawValue, etag: info.validator.headerValue, version: info.version,
            contentEtag: info.contentTag.headerValue,
            origin: info.origin == .upload ? .upload : .registered, pageCount: info.pageCount,
            pages: info.pages.map { .init(number: $0.number, width: $0.width, height: $0.height, label: $0.label) },
            metadata: .init(info.metadata),
            files: info.files.map { .init(path: $0.path, size: $0.size, etag: $0.tag.headerValue) },
            state: .init(info.state), conflict: conflict,
            damage: info.damage.map { .init(file: $0.file, reason: $0.reason) }, encrypted: info.isEncrypted,
            size: info.size, createdAt: info.createdAt, updatedAt: info.updatedAt)
    }
}

extension Components.Schemas.ConflictReport {
    /// `ConflictReport` of a document's conflict report: the facts of the file on disk, when it can be read.
    init(_ report: StoreCore.ConflictReport) {
        self.init(
            document: report.document.rawValue, state: .init(report.state),
            conflict: report.conflict.map {
                .init(
                    _type: .init($0.type), file: $0.file, fileSize: $0.fileSize, fileEtag: $0.fileTag?.headerValue)
            })
    }
}

extension Components.Schemas.DocumentVersion {
    /// `DocumentVersion` of a version kept of one of a document's files.
    init(_ kept: KeptVersion) {
        let version = kept.version
        self.init(
            id: version.id, file: version.itemURL.path,
            modificationDate: version.modificationDate ?? Date(timeIntervalSince1970: 0),
            isConflict: version.isConflict, isResolved: version.isResolved, size: kept.size,
            localizedName: version.localizedName ?? version.itemURL.lastPathComponent)
    }
}

extension Components.Schemas.AnnotationRequest {
    /// The annotation the request asks for (the library checks its members).
    var newAnnotation: NewAnnotation {
        NewAnnotation(
            kind: kind.rawValue, page: page, x: rect.x, y: rect.y, width: rect.width, height: rect.height,
            contents: contents)
    }
}

/// RFC 3339 in UTC with milliseconds, as the event log writes dates.
package func timestamp(_ date: Date) -> String {
    date.formatted(StoreEvent.timestampFormat)
}
