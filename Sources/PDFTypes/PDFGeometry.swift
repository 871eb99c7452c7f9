/// A rectangle in PDF page space: points (1/72 inch), origin at the bottom-left corner of the page.
public struct PDFRect: Sendable, Equatable, Hashable, Codable {
    /// The left edge.
    public var x: Double
    /// The bottom edge.
    public var y: Double
    /// The width; never negative.
    public var width: Double
    /// The height; never negative.
    public var height: Double

    /// Creates a rectangle from its bottom-left corner and size.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The right edge (`x + width`).
    public var maxX: Double { x + width }
    /// The top edge (`y + height`).
    public var maxY: Double { y + height }

    /// Whether every coordinate is finite and the size is positive.
    public var isUsable: Bool {
        x.isFinite && y.isFinite && width.isFinite && height.isFinite && width > 0 && height > 0
    }
}

/// The size of a page in points (1/72 inch), as displayed: a page rotated by 90° or 270° has its sides swapped.
public struct PDFPageSize: Sendable, Equatable, Hashable, Codable {
    /// The width in points.
    public var width: Double
    /// The height in points.
    public var height: Double

    /// Creates a size in points.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// What a page is: its index, displayed size and label.
public struct PDFPageInfo: Sendable, Equatable, Codable {
    /// The zero-based index of the page.
    public var index: Int
    /// The displayed size in points.
    public var size: PDFPageSize
    /// The page label (for example "iv" or "A-1"); poppler gives the page number when the PDF defines no labels.
    public var label: String?

    /// Creates page information.
    public init(index: Int, size: PDFPageSize, label: String?) {
        self.index = index
        self.size = size
        self.label = label
    }
}

/// What the document's security handler permits. The corresponding C type is `PopplerPermissions`.
public struct PDFPermissions: OptionSet, Sendable, Hashable, Codable {
    /// The raw bit set, with poppler's values.
    public let rawValue: UInt32
    /// Creates permissions from poppler's raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The document may be printed. The corresponding C constant is `POPPLER_PERMISSIONS_OK_TO_PRINT`.
    public static let print = PDFPermissions(rawValue: 1 << 0)
    /// The contents may be modified. The corresponding C constant is `POPPLER_PERMISSIONS_OK_TO_MODIFY`.
    public static let modify = PDFPermissions(rawValue: 1 << 1)
    /// Text and graphics may be copied. The corresponding C constant is `POPPLER_PERMISSIONS_OK_TO_COPY`.
    public static let copy = PDFPermissions(rawValue: 1 << 2)
    /// Annotations may be added. The corresponding C constant is `POPPLER_PERMISSIONS_OK_TO_ADD_NOTES`.
    public static let addNotes = PDFPermissions(rawValue: 1 << 3)
    /// Form fields may be filled in. The corresponding C constant is `POPPLER_PERMISSIONS_OK_TO_FILL_FORM`.
    public static let fillForm = PDFPermissions(rawValue: 1 << 4)
    /// Content may be extracted (accessibility). The corresponding C constant is `POPPLER_PERMISSIONS_OK_TO_EXTRACT_CONTENTS`.
    public static let extractContents = PDFPermissions(rawValue: 1 << 5)
    /// Pages may be inserted, rotated or deleted. The corresponding C constant is `POPPLER_PERMISSIONS_OK_TO_ASSEMBLE`.
    public static let assemble = PDFPermissions(rawValue: 1 << 6)
    /// The document may be printed at high resolution.
    /// The corresponding C constant is `POPPLER_PERMISSIONS_OK_TO_PRINT_HIGH_RESOLUTION`.
    public static let printHighResolution = PDFPermissions(rawValue: 1 << 7)
    /// Every operation is permitted. The corresponding C constant is `POPPLER_PERMISSIONS_FULL`.
    public static let full: PDFPermissions = [
        .print, .modify, .copy, .addNotes, .fillForm, .extractContents, .assemble, .printHighResolution,
    ]

    /// The names of the permissions that are set, in a fixed order (for reports and JSON).
    public var names: [String] {
        let all: [(PDFPermissions, String)] = [
            (.print, "print"), (.modify, "modify"), (.copy, "copy"), (.addNotes, "addNotes"),
            (.fillForm, "fillForm"), (.extractContents, "extractContents"), (.assemble, "assemble"),
            (.printHighResolution, "printHighResolution"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}
