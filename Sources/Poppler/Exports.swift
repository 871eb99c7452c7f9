// The value types of the PDF API (errors, geometry, metadata, annotations) live in PDFTypes, which has no C
// dependency, so that code that only describes PDFs (a document model backed by worker processes, say) need
// not link poppler. Importing Poppler brings them in as before.
@_exported import PDFTypes
