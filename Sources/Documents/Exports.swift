// `Documents` is the document model of `DocumentModel` (providers, coordination, conflicts, `Document`) with
// poppler as its PDF engine, in this process: what library users import. The document-store service imports
// `DocumentModel` alone and parses PDFs in worker processes, so that its process never maps poppler.
@_exported import DocumentModel
@_exported import PDFTypes
