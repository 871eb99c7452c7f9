import CPoppler
import QuireSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A PDF document opened from memory with poppler-glib.
///
/// A document is confined to one thread at a time by its own lock: calls from several threads are safe but run
/// one after another. For parallel work open one instance per thread (see ``PDFTextExtractor``).
/// Pages are addressed by zero-based index everywhere.
public final class PDFDocument: @unchecked Sendable {
    /// The highest resolution ``renderPNG(pageAt:dpi:compressionLevel:)`` accepts, in dots per inch.
    public static let maximumDPI: Double = PDFLimits.maximumDPI
    /// The largest image, in pixels, that rendering produces (about 600 MB of pixels).
    public static let maximumRenderPixels = PDFLimits.maximumRenderPixels

    /// Guards every poppler call on `handle`; poppler documents are not thread-safe.
    private let lock = Mutex(())
    /// The `PopplerDocument*`, owned (one reference).
    private let handle: OpaquePointer

    /// The number of pages.
    public let pageCount: Int
    /// Whether the file is encrypted (it has an `/Encrypt` dictionary), even if it opened without a password.
    public let isEncrypted: Bool
    /// Whether a password was needed to open it.
    public let neededPassword: Bool

    /// Opens a PDF held in memory.
    ///
    /// The document is first opened without a password, so an owner-password-only PDF opens even when the
    /// password given is wrong; `password` is tried only if poppler asks for one (either the user or the owner
    /// password opens the document).
    /// - Throws: `PDFError.empty` for no bytes, `.encrypted` when a password is needed and missing or wrong,
    ///   `.damaged` for a damaged file or non-PDF input, `.invalid` for anything else poppler rejects.
    public init(data: Data, password: String? = nil) throws(PDFError) {
        guard !data.isEmpty else { throw .empty }
        var opened = Self.open(data, password: nil)
        var neededPassword = false
        if case .failure(.encrypted) = opened, let password {
            neededPassword = true
            opened = Self.open(data, password: password)
        } else if case .failure(.encrypted) = opened {
            neededPassword = true
        }
        switch opened {
        case .success(let document): handle = document
        case .failure(let error): throw error
        }
        self.neededPassword = neededPassword
        pageCount = Int(poppler_document_get_n_pages(handle))
        isEncrypted = neededPassword || Self.containsEncryptDictionary(data)
    }

    deinit {
        GLibInterop.unref(handle)
    }

    private static func open(_ data: Data, password: String?) -> Result<OpaquePointer, PDFError> {
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        let stream = g_memory_input_stream_new_from_bytes(bytes)
        defer { g_object_unref(stream) }
        var error: UnsafeMutablePointer<GError>?
        guard let document = poppler_document_new_from_stream(stream, goffset(data.count), password, nil, &error)
        else { return .failure(GLibInterop.openError(consuming: error)) }
        return .success(document)
    }

    private static func containsEncryptDictionary(_ data: Data) -> Bool {
        let needle = Array("/Encrypt".utf8)
        return data.withUnsafeBytes { buffer -> Bool in
            let bytes = buffer.bindMemory(to: UInt8.self)
            guard bytes.count >= needle.count else { return false }
            var index = 0
            let last = bytes.count - needle.count
            while index <= last {
                if bytes[index] == UInt8(ascii: "/") {
                    var matched = true
                    for offset in 1..<needle.count where bytes[index + offset] != needle[offset] {
                        matched = false
                        break
                    }
                    if matched { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// Runs `body` with the poppler document while holding the document's lock.
    func withDocument<T>(_ body: (OpaquePointer) throws(PDFError) -> T) throws(PDFError) -> T {
        try lock.withLock { _ throws(PDFError) -> T in try body(handle) }
    }

    /// Runs `body` with page `index` (a new reference, released afterwards) while holding the lock.
    func withPage<T>(_ index: Int, _ body: (OpaquePointer, OpaquePointer) throws(PDFError) -> T) throws(PDFError) -> T {
        guard index >= 0, index < pageCount else { throw .pageOutOfRange(index) }
        return try withDocument { document throws(PDFError) -> T in
            guard let page = poppler_document_get_page(document, Int32(index)) else {
                throw .operationFailed(operation: "opening page \(index + 1)", reason: "poppler returned no page")
            }
            defer { GLibInterop.unref(page) }
            return try body(document, page)
        }
    }

    // MARK: Document-level facts

    /// What the document permits (poppler reports every permission for unencrypted files).
    public var permissions: PDFPermissions {
        lock.withLock { _ in PDFPermissions(rawValue: poppler_document_get_permissions(handle).rawValue) }
    }

    /// The PDF version, for example "PDF-1.7".
    public var pdfVersion: String {
        lock.withLock { _ in GLibInterop.takeString(poppler_document_get_pdf_version_string(handle)) ?? "" }
    }

    /// Whether the file is linearized ("fast web view").
    public var isLinearized: Bool {
        lock.withLock { _ in poppler_document_is_linearized(handle) != 0 }
    }

    // MARK: Pages

    /// The displayed size of a page in points (sides swapped for pages rotated by 90° or 270°).
    /// - Throws: `PDFError.pageOutOfRange` for a bad index.
    public func pageSize(at index: Int) throws(PDFError) -> PDFPageSize {
        try withPage(index) { _, page in
            var width = 0.0
            var height = 0.0
            poppler_page_get_size(page, &width, &height)
            return PDFPageSize(width: width, height: height)
        }
    }

    /// The label of a page ("iv", "A-1"); poppler gives the page number when the PDF defines no labels.
    /// - Throws: `PDFError.pageOutOfRange` for a bad index.
    public func pageLabel(at index: Int) throws(PDFError) -> String? {
        try withPage(index) { _, page in GLibInterop.takeString(poppler_page_get_label(page)) }
    }

    /// Size and label of a page in one call.
    /// - Throws: `PDFError.pageOutOfRange` for a bad index.
    public func pageInfo(at index: Int) throws(PDFError) -> PDFPageInfo {
        try withPage(index) { _, page in
            var width = 0.0
            var height = 0.0
            poppler_page_get_size(page, &width, &height)
            let label = GLibInterop.takeString(poppler_page_get_label(page))
            return PDFPageInfo(index: index, size: PDFPageSize(width: width, height: height), label: label)
        }
    }

    /// The text of a page in reading order, as poppler lays it out (UTF-8; lines end with "\n").
    /// - Throws: `PDFError.pageOutOfRange` for a bad index.
    public func text(ofPageAt index: Int) throws(PDFError) -> String {
        try withPage(index) { _, page in GLibInterop.takeString(poppler_page_get_text(page)) ?? "" }
    }

    /// Finds every occurrence of `text` on a page and returns where each one is, in PDF page space.
    /// - Parameters:
    ///   - text: The text to find (not empty).
    ///   - index: The page, from 0.
    ///   - caseSensitive: match case exactly; by default the search ignores case.
    /// - Throws: `PDFError.pageOutOfRange` for a bad index, `.invalidArgument` for an empty string.
    public func find(_ text: String, onPageAt index: Int, caseSensitive: Bool = false) throws(PDFError) -> [PDFRect] {
        guard !text.isEmpty else { throw .invalidArgument("the text to find is empty") }
        return try withPage(index) { _, page in
            let flags = caseSensitive ? POPPLER_FIND_CASE_SENSITIVE : POPPLER_FIND_DEFAULT
            guard let list = poppler_page_find_text_with_options(page, text, flags) else { return [] }
            defer { g_list_free(list) }
            var rects: [PDFRect] = []
            var node: UnsafeMutablePointer<GList>? = list
            while let current = node {
                if let raw = current.pointee.data {
                    let rectangle = raw.assumingMemoryBound(to: PopplerRectangle.self)
                    rects.append(PDFRect(poppler: rectangle.pointee))
                    poppler_rectangle_free(rectangle)
                }
                node = current.pointee.next
            }
            return rects
        }
    }

    // MARK: Saving

    /// Writes the document, with every change made through this instance (metadata, annotations), to bytes.
    /// - Throws: `PDFError.operationFailed` if poppler or the operating system cannot write it.
    public func dataRepresentation() throws(PDFError) -> Data {
        // poppler_document_save_to_fd writes nothing for stream-based documents in poppler 22.12 (measured:
        // 0 bytes and a success result), so save to a private temporary file by URI and read it back.
        let file = try TemporaryFile()
        defer { file.remove() }
        try withDocument { document throws(PDFError) in
            var error: UnsafeMutablePointer<GError>?
            guard let uri = g_filename_to_uri(file.path, nil, &error) else {
                throw GLibInterop.operationError("saving the document", consuming: error)
            }
            defer { g_free(uri) }
            guard poppler_document_save(document, uri, &error) != 0 else {
                throw GLibInterop.operationError("saving the document", consuming: error)
            }
        }
        return Data(try file.readAll())
    }

    /// Writes the document, with every change made through this instance, to `descriptor` (open for writing, at
    /// its offset) without any path: for a process that may not open files (a sandboxed PDF worker).
    ///
    /// poppler 22.12's `poppler_document_save_to_fd` writes through a `FILE` it never flushes or closes
    /// (measured: 0 bytes for a 1.4 KB document, the 100 KB one cut at 102,400 bytes), so this hands it a
    /// duplicate of `descriptor`, flushes every stream (`fflush(NULL)`) and closes the duplicate. That `FILE`
    /// (a few KB) is never freed: the cost of each call, which is why ``dataRepresentation()`` uses a temporary
    /// file instead.
    /// - Throws: `PDFError.operationFailed` if poppler or the operating system cannot write it.
    public func write(toDescriptor descriptor: Int32) throws(PDFError) {
        let duplicate: Int32
        do throws(SystemCallError) {
            duplicate = try SystemCall.duplicate(descriptor)
        } catch {
            throw .operationFailed(operation: "saving the document", reason: error.reason)
        }
        defer { SystemCall.close(duplicate) }
        try withDocument { document throws(PDFError) in
            var error: UnsafeMutablePointer<GError>?
            let saved = poppler_document_save_to_fd(document, duplicate, 1, &error)
            fflush(nil)
            guard saved != 0 else { throw GLibInterop.operationError("saving the document", consuming: error) }
        }
    }
}

extension PDFRect {
    /// Converts a poppler rectangle (x1,y1)-(x2,y2) in PDF page space, whatever its corner order.
    init(poppler rectangle: PopplerRectangle) {
        let left = min(rectangle.x1, rectangle.x2)
        let bottom = min(rectangle.y1, rectangle.y2)
        self.init(x: left, y: bottom, width: abs(rectangle.x2 - rectangle.x1), height: abs(rectangle.y2 - rectangle.y1))
    }

    /// The poppler rectangle with (x1,y1) the bottom-left and (x2,y2) the top-right corner.
    var poppler: PopplerRectangle {
        PopplerRectangle(x1: x, y1: y, x2: maxX, y2: maxY)
    }
}
