import Foundation

/// Finds a member name that appears twice in one JSON object, which Foundation's `JSONSerialization` accepts
/// silently (the last one wins): a request body with one is ambiguous, and is refused by name.
package enum JSONDuplicateKeys {
    /// The path of the first member whose name its object already has (`title`, `rect.x`, `files[].name`), or nil
    /// when there is none. One pass over the bytes, no tree built; text that is not JSON gives nil (parse it first).
    package static func first(in data: Data) -> String? {
        var scanner = Scanner(bytes: [UInt8](data))
        return scanner.firstDuplicate()
    }

    /// An open object or array, and the path of the values inside it.
    private struct Container {
        var path: String
        var isObject: Bool
        var names: Set<String> = []
        /// In an object: the next string is a member name.
        var expectsName: Bool
        /// In an object: the name of the member whose value comes next.
        var name = ""
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var open: [Container] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// The path a value opened now has.
        private var valuePath: String {
            guard let container = open.last else { return "" }
            if !container.isObject { return container.path + "[]" }
            return container.path.isEmpty ? container.name : container.path + "." + container.name
        }

        mutating func firstDuplicate() -> String? {
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "{"):
                    open.append(Container(path: valuePath, isObject: true, expectsName: true))
                case UInt8(ascii: "["):
                    open.append(Container(path: valuePath, isObject: false, expectsName: false))
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard open.popLast() != nil else { return nil }
                case UInt8(ascii: ","):
                    if open.last?.isObject == true { open[open.count - 1].expectsName = true }
                case UInt8(ascii: "\""):
                    guard let text = string() else { return nil }
                    guard let container = open.last, container.isObject, container.expectsName else { continue }
                    if container.names.contains(text) {
                        return container.path.isEmpty ? text : container.path + "." + text
                    }
                    open[open.count - 1].names.insert(text)
                    open[open.count - 1].name = text
                    open[open.count - 1].expectsName = false
                default:
                    continue
                }
            }
            return nil
        }

        /// The string whose opening quote was just read, unescaped; nil when it does not end.
        private mutating func string() -> String? {
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll(keepingCapacity: true)
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "b"): raw.append(0x08)
                    case UInt8(ascii: "f"): raw.append(0x0C)
                    case UInt8(ascii: "n"): raw.append(0x0A)
                    case UInt8(ascii: "r"): raw.append(0x0D)
                    case UInt8(ascii: "t"): raw.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var unit = hexUnit() else { return nil }
                        flush()
                        // A high surrogate followed by an escaped low one is one scalar.
                        if (0xD800..<0xDC00).contains(unit), index + 1 < bytes.count,
                            bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        {
                            index += 2
                            guard let low = hexUnit() else { return nil }
                            if (0xDC00..<0xE000).contains(low) {
                                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                scalars.append(Unicode.Scalar(0xFFFD)!)
                                unit = low
                            }
                        }
                        scalars.append(Unicode.Scalar(unit) ?? Unicode.Scalar(0xFFFD)!)
                    default: raw.append(escaped)  // \" \\ \/
                    }
                default:
                    raw.append(byte)
                }
            }
            return nil
        }

        /// The four hexadecimal digits after `\u`.
        private mutating func hexUnit() -> UInt32? {
            guard index + 4 <= bytes.count,
                let unit = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { return nil }
            index += 4
            return unit
        }
    }
}
