import Foundation

/// The catalog keeps dates as Unix time in whole milliseconds (an INTEGER column, exact and readable with
/// `datetime(at / 1000, 'unixepoch')`). Records round their dates to that precision when set, so that a record
/// equals itself read back.
extension Date {
    /// Milliseconds since 1970, as the catalog stores the date.
    var catalogMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    /// The date of a catalog column.
    init(catalogMilliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(catalogMilliseconds) / 1000)
    }

    /// The date as the catalog gives it back: rounded to the millisecond.
    var roundedToCatalogPrecision: Date { Date(catalogMilliseconds: catalogMilliseconds) }
}
