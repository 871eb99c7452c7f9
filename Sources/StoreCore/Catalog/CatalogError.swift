/// Why a catalog operation failed. Each description is one line naming the document or the database file.
public enum CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The catalog database could not be created, opened or migrated; `reason` is SQLite's or the file system's.
    case cannotOpen(path: String, reason: String)
    /// A document with this id is already in the catalog.
    case duplicateDocument(DocumentID)
    /// No document with this id is in the catalog.
    case documentNotFound(DocumentID)
    /// A row holds a value this version of Quire never writes: the database was edited by hand or by a newer
    /// version.
    case corruptRow(table: String, column: String, value: String)
    /// A read or write of the catalog failed; `reason` is SQLite's message.
    case databaseFailed(path: String, operation: String, reason: String)

    /// One line naming what failed.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot open the catalog \(path): \(reason)"
        case .duplicateDocument(let id):
            return "document \(id) is already in the catalog"
        case .documentNotFound(let id):
            return "document \(id) is not in the catalog"
        case .corruptRow(let table, let column, let value):
            return "the catalog's \(table).\(column) holds \"\(value)\", which this version of Quire never writes "
                + "(edited by hand, or by a newer version?)"
        case .databaseFailed(let path, let operation, let reason):
            return "cannot \(operation) in the catalog \(path): \(reason)"
        }
    }
}
