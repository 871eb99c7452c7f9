import CPoppler

/// The one place where GLib conventions (GError, g_malloc'ed strings, GObject references) meet Swift.
enum GLibInterop {
    /// Takes ownership of a g_malloc'ed, NUL-terminated UTF-8 string: copies it into a Swift `String` and frees it.
    static func takeString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
        guard let pointer else { return nil }
        defer { g_free(pointer) }
        return String(cString: pointer)
    }

    /// Releases a GObject reference held as an opaque pointer.
    static func unref(_ object: OpaquePointer) {
        g_object_unref(UnsafeMutableRawPointer(object))
    }

    /// Converts a GError (possibly NULL, see notes P3) from a failed open into a `PDFError`, freeing it.
    static func openError(consuming error: UnsafeMutablePointer<GError>?) -> PDFError {
        guard let error else { return .invalid }
        defer { g_error_free(error) }
        guard error.pointee.domain == poppler_error_quark() else { return .damaged }
        switch UInt32(bitPattern: error.pointee.code) {
        case POPPLER_ERROR_ENCRYPTED.rawValue: return .encrypted
        case POPPLER_ERROR_DAMAGED.rawValue, POPPLER_ERROR_BAD_CATALOG.rawValue: return .damaged
        default: return .invalid
        }
    }

    /// Converts a GError from any other failed call into `.operationFailed`, freeing it.
    static func operationError(_ operation: String, consuming error: UnsafeMutablePointer<GError>?) -> PDFError {
        guard let error else { return .operationFailed(operation: operation, reason: "unknown error") }
        defer { g_error_free(error) }
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        return .operationFailed(operation: operation, reason: message)
    }
}
