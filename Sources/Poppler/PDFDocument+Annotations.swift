import CPoppler

extension PDFDocument {
    /// The annotations on a page, in the page's order, with rectangles in PDF page space.
    /// - Throws: `PDFError.pageOutOfRange` for a bad index.
    public func annotations(onPageAt index: Int) throws(PDFError) -> [PDFAnnotation] {
        try withPage(index) { _, page in
            Self.withAnnotations(page) { annots in
                annots.map { annot in
                    var rectangle = PopplerRectangle()
                    poppler_annot_get_rectangle(annot, &rectangle)
                    return PDFAnnotation(
                        kind: Self.kind(of: annot),
                        rect: PDFRect(poppler: rectangle),
                        contents: GLibInterop.takeString(poppler_annot_get_contents(annot)) ?? ""
                    )
                }
            }
        }
    }

    /// Adds a note or a highlight to a page. A highlight is yellow and covers `annotation.rect`.
    /// - Throws: `PDFError.pageOutOfRange` for a bad index; `.invalidArgument` for a rectangle that is not
    ///   finite and positive, or for a kind other than `.note` and `.highlight`.
    public func addAnnotation(_ annotation: PDFAnnotation, toPageAt index: Int) throws(PDFError) {
        guard annotation.rect.isUsable else {
            throw .invalidArgument("the annotation rectangle must be finite with a positive width and height")
        }
        try withPage(index) { document, page throws(PDFError) in
            var rectangle = annotation.rect.poppler
            let created: OpaquePointer?
            switch annotation.kind {
            case .note:
                created = poppler_annot_text_new(document, &rectangle)
            case .highlight:
                let quads = g_array_sized_new(0, 0, guint(MemoryLayout<PopplerQuadrilateral>.stride), 1)
                defer { g_array_unref(quads) }
                let rect = annotation.rect
                var quad = PopplerQuadrilateral(
                    p1: PopplerPoint(x: rect.x, y: rect.maxY), p2: PopplerPoint(x: rect.maxX, y: rect.maxY),
                    p3: PopplerPoint(x: rect.x, y: rect.y), p4: PopplerPoint(x: rect.maxX, y: rect.y))
                g_array_append_vals(quads, &quad, 1)
                created = poppler_annot_text_markup_new_highlight(document, &rectangle, quads)
            case .other(let subtype):
                throw .invalidArgument("annotations of subtype \(subtype) cannot be created; use a note or a highlight")
            }
            guard let annot = created else {
                throw .operationFailed(operation: "creating an annotation", reason: "poppler returned none")
            }
            defer { GLibInterop.unref(annot) }
            if case .highlight = annotation.kind {
                var yellow = PopplerColor(red: 65535, green: 65535, blue: 0)
                poppler_annot_set_color(annot, &yellow)
            }
            poppler_annot_set_contents(annot, annotation.contents)
            poppler_page_add_annot(page, annot)
        }
    }

    /// Removes the annotation at `annotationIndex` in ``annotations(onPageAt:)`` from a page.
    /// - Throws: `PDFError.pageOutOfRange` for a bad page, `.annotationOutOfRange` for a bad annotation index.
    public func removeAnnotation(at annotationIndex: Int, onPageAt index: Int) throws(PDFError) {
        try withPage(index) { _, page throws(PDFError) in
            let found: Bool = Self.withAnnotations(page) { annots in
                guard annotationIndex >= 0, annotationIndex < annots.count else { return false }
                poppler_page_remove_annot(page, annots[annotationIndex])
                return true
            }
            guard found else { throw .annotationOutOfRange(page: index, index: annotationIndex) }
        }
    }

    /// Runs `body` with the page's `PopplerAnnot*` list, in order; the list is freed afterwards.
    private static func withAnnotations<T>(_ page: OpaquePointer, _ body: ([OpaquePointer]) -> T) -> T {
        let list = poppler_page_get_annot_mapping(page)
        defer { poppler_page_free_annot_mapping(list) }
        var annots: [OpaquePointer] = []
        var node = list
        while let current = node {
            if let raw = current.pointee.data {
                let mapping = raw.assumingMemoryBound(to: PopplerAnnotMapping.self)
                if let annot = mapping.pointee.annot { annots.append(annot) }
            }
            node = current.pointee.next
        }
        return body(annots)
    }

    private static func kind(of annot: OpaquePointer) -> PDFAnnotation.Kind {
        let type = poppler_annot_get_annot_type(annot)
        switch type {
        case POPPLER_ANNOT_TEXT: return .note
        case POPPLER_ANNOT_HIGHLIGHT: return .highlight
        default: return .other(Self.subtypeNames[Int(type.rawValue)] ?? "Unknown")
        }
    }

    private static let subtypeNames: [Int: String] = [
        Int(POPPLER_ANNOT_LINK.rawValue): "Link", Int(POPPLER_ANNOT_FREE_TEXT.rawValue): "FreeText",
        Int(POPPLER_ANNOT_LINE.rawValue): "Line", Int(POPPLER_ANNOT_SQUARE.rawValue): "Square",
        Int(POPPLER_ANNOT_CIRCLE.rawValue): "Circle", Int(POPPLER_ANNOT_POLYGON.rawValue): "Polygon",
        Int(POPPLER_ANNOT_POLY_LINE.rawValue): "PolyLine", Int(POPPLER_ANNOT_UNDERLINE.rawValue): "Underline",
        Int(POPPLER_ANNOT_SQUIGGLY.rawValue): "Squiggly", Int(POPPLER_ANNOT_STRIKE_OUT.rawValue): "StrikeOut",
        Int(POPPLER_ANNOT_STAMP.rawValue): "Stamp", Int(POPPLER_ANNOT_CARET.rawValue): "Caret",
        Int(POPPLER_ANNOT_INK.rawValue): "Ink", Int(POPPLER_ANNOT_POPUP.rawValue): "Popup",
        Int(POPPLER_ANNOT_FILE_ATTACHMENT.rawValue): "FileAttachment", Int(POPPLER_ANNOT_SOUND.rawValue): "Sound",
        Int(POPPLER_ANNOT_MOVIE.rawValue): "Movie", Int(POPPLER_ANNOT_WIDGET.rawValue): "Widget",
        Int(POPPLER_ANNOT_SCREEN.rawValue): "Screen", Int(POPPLER_ANNOT_PRINTER_MARK.rawValue): "PrinterMark",
        Int(POPPLER_ANNOT_TRAP_NET.rawValue): "TrapNet", Int(POPPLER_ANNOT_WATERMARK.rawValue): "Watermark",
        Int(POPPLER_ANNOT_3D.rawValue): "3D",
    ]
}
