import Foundation

/// Small valid PDFs with given text on each page (Helvetica, one line per page), made in the test: what a search
/// must find, with no fixture to keep in step.
public enum TextPDF {
    /// A PDF whose page `n` shows `pages[n]` (ASCII letters, digits and spaces).
    public static func make(_ pages: [String], title: String? = nil) -> Data {
        var objects: [String] = []
        objects.append("<< /Type /Catalog /Pages 2 0 R >>")
        let pageIDs = pages.indices.map { 4 + 2 * $0 }
        objects.append(
            "<< /Type /Pages /Kids [\(pageIDs.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages.count) >>")
        objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        for (index, text) in pages.enumerated() {
            let stream = "BT /F1 14 Tf 72 720 Td (\(text)) Tj ET"
            objects.append(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                    + "/Contents \(pageIDs[index] + 1) 0 R >>")
            objects.append("<< /Length \(stream.utf8.count) >>\nstream\n\(stream)\nendstream")
        }
        if let title { objects.append("<< /Title (\(title)) >>") }
        var pdf = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(pdf.utf8.count)
            pdf += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = pdf.utf8.count
        pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { pdf += String(format: "%010d 00000 n \n", offset) }
        pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R"
        if title != nil { pdf += " /Info \(objects.count) 0 R" }
        pdf += " >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(pdf.utf8)
    }
}
