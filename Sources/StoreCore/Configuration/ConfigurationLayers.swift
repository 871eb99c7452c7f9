import Configuration

/// The configuration sources in precedence order (flags, environment, file, built-in defaults), each a
/// swift-configuration snapshot. A key takes the value of the first layer that has one, as `ConfigReader` does;
/// unlike `ConfigReader`'s get methods, a value of the wrong type is an error rather than a silent fall-back to
/// the default, and every value keeps its source for the one-line error.
struct ConfigurationLayers {
    /// One source and the snapshot that reads it.
    struct Layer {
        /// What kind of source the layer reads; it decides how a key's source is named.
        enum Kind {
            case flags
            case environment
            case file(path: String)
            case builtInDefaults
        }

        let kind: Kind
        let snapshot: any ConfigSnapshot

        /// Where `key`'s value came from when this layer supplied it.
        func source(of key: ConfigurationKey) -> ConfigurationSource {
            switch kind {
            case .flags:
                return .flag(key.flag)
            case .environment:
                return .environment(key.environmentVariable)
            case .file(let path):
                return .file(path: path, key: key.name)
            case .builtInDefaults:
                return .builtInDefault
            }
        }
    }

    /// A value and where it came from.
    struct Sourced<Value> {
        let value: Value
        let source: ConfigurationSource
    }

    /// The layers, highest precedence first.
    let layers: [Layer]

    /// The string at `key`, or nil when no layer has one.
    /// - Throws: ``ConfigurationError/invalidValue(key:value:source:reason:)`` when the deciding layer's value is
    ///   not a string.
    func string(_ key: ConfigurationKey) throws(ConfigurationError) -> Sourced<String>? {
        guard let found = try content(of: key, as: .string, expected: "a string") else { return nil }
        guard case .string(let string) = found.value else { throw mismatch(key, found, expected: "a string") }
        return Sourced(value: string, source: found.source)
    }

    /// The integer at `key`, or nil when no layer has one.
    /// - Throws: ``ConfigurationError/invalidValue(key:value:source:reason:)`` when the deciding layer's value is
    ///   not a whole number.
    func int(_ key: ConfigurationKey) throws(ConfigurationError) -> Sourced<Int>? {
        guard let found = try content(of: key, as: .int, expected: "a whole number") else { return nil }
        guard case .int(let int) = found.value else { throw mismatch(key, found, expected: "a whole number") }
        return Sourced(value: int, source: found.source)
    }

    /// The list of strings at `key`, or nil when no layer has one.
    /// - Throws: ``ConfigurationError/invalidValue(key:value:source:reason:)`` when the deciding layer's value is
    ///   not a list of strings.
    func strings(_ key: ConfigurationKey) throws(ConfigurationError) -> Sourced<[String]>? {
        let expected = "a list of strings"
        guard let found = try content(of: key, as: .stringArray, expected: expected) else { return nil }
        guard case .stringArray(let strings) = found.value else { throw mismatch(key, found, expected: expected) }
        return Sourced(value: strings, source: found.source)
    }

    /// The first layer's value for `key`, read as `type`.
    private func content(
        of key: ConfigurationKey, as type: ConfigType, expected: String
    ) throws(ConfigurationError) -> Sourced<ConfigContent>? {
        let absoluteKey = AbsoluteConfigKey(key.components)
        for layer in layers {
            let result: LookupResult
            do {
                result = try layer.snapshot.value(forKey: absoluteKey, type: type)
            } catch {
                // The value is there but of another type: show it as the source spells it, where it can.
                let asString = try? layer.snapshot.value(forKey: absoluteKey, type: .string).value
                let shown = asString.map { Self.display($0.content, of: key) } ?? "(a value of another type)"
                throw .invalidValue(
                    key: key.name, value: shown, source: layer.source(of: key), reason: "must be \(expected)")
            }
            if let value = result.value {
                return Sourced(value: value.content, source: layer.source(of: key))
            }
        }
        return nil
    }

    private func mismatch(
        _ key: ConfigurationKey, _ found: Sourced<ConfigContent>, expected: String
    ) -> ConfigurationError {
        let shown = Self.display(found.value, of: key)
        return .invalidValue(key: key.name, value: shown, source: found.source, reason: "must be \(expected)")
    }

    /// A value as it appears in an error: strings quoted, lists colon-separated, the token and a database password
    /// never shown.
    static func display(_ content: ConfigContent, of key: ConfigurationKey) -> String {
        if key == .token { return "<redacted>" }
        if key == .database, case .string(let string) = content {
            return "\"\(DatabaseAddress.redacting(string))\""
        }
        switch content {
        case .string(let string):
            return "\"\(string)\""
        case .int(let int):
            return String(int)
        case .double(let double):
            return String(double)
        case .bool(let bool):
            return String(bool)
        case .stringArray(let strings):
            return "\"\(strings.joined(separator: ":"))\""
        case .intArray, .doubleArray, .boolArray, .bytes, .byteChunkArray:
            return "(a value of another type)"
        }
    }
}
