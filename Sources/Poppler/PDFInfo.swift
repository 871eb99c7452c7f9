/// A snapshot of what a document is: pages with sizes and labels, metadata, encryption and permissions.
public struct PDFInfo: Sendable, Equatable, Codable {
    /// The number of pages.
    public var pageCount: Int
    /// Every page's size and label, in order.
    public var pages: [PDFPageInfo]
    /// The Info-dictionary metadata.
    public var metadata: PDFMetadata
    /// Whether the file is encrypted.
    public var encrypted: Bool
    /// Whether opening it needed a password.
    public var neededPassword: Bool
    /// The names of what the document permits (see `PDFPermissions.names`).
    public var permissions: [String]
    /// The PDF version, for example "PDF-1.7".
    public var pdfVersion: String
    /// Whether the file is linearized.
    public var linearized: Bool
}

extension PDFDocument {
    /// Collects a ``PDFInfo`` snapshot of the document.
    /// - Throws: `PDFError.operationFailed` if poppler cannot load a page.
    public func info() throws(PDFError) -> PDFInfo {
        var pages: [PDFPageInfo] = []
        pages.reserveCapacity(pageCount)
        for index in 0..<pageCount { pages.append(try pageInfo(at: index)) }
        return PDFInfo(
            pageCount: pageCount, pages: pages, metadata: metadata, encrypted: isEncrypted,
            neededPassword: neededPassword, permissions: permissions.names, pdfVersion: pdfVersion,
            linearized: isLinearized)
    }
}
