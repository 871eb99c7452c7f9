import Configuration
import Foundation

extension StoreConfiguration {
    /// The built-in defaults: the values of `config/quire.json` (a test keeps the two equal).
    static let builtInDefaults: [AbsoluteConfigKey: ConfigValue] = [
        AbsoluteConfigKey(ConfigurationKey.store.components): "./.quire-data",
        AbsoluteConfigKey(ConfigurationKey.host.components): "127.0.0.1",
        AbsoluteConfigKey(ConfigurationKey.port.components): 8080,
        AbsoluteConfigKey(ConfigurationKey.coordinationScope.components): "user",
        AbsoluteConfigKey(ConfigurationKey.maxUploadBytes.components): 104_857_600,
        AbsoluteConfigKey(ConfigurationKey.maxOpenDocuments.components): 64,
        AbsoluteConfigKey(ConfigurationKey.maxDPI.components): 600,
        AbsoluteConfigKey(ConfigurationKey.uploadBudgetBytes.components): 536_870_912,
        AbsoluteConfigKey(ConfigurationKey.headerTimeoutSeconds.components): 10,
        AbsoluteConfigKey(ConfigurationKey.idleTimeoutSeconds.components): 60,
        AbsoluteConfigKey(ConfigurationKey.minBodyBytesPerSecond.components): 16_384,
        AbsoluteConfigKey(ConfigurationKey.bodyTimeoutSeconds.components): 1800,
        AbsoluteConfigKey(ConfigurationKey.maxConnections.components): 10_000,
        AbsoluteConfigKey(ConfigurationKey.pdfWorkers.components): ConfigValue(
            .int(max(1, ProcessInfo.processInfo.activeProcessorCount)), isSecret: false),
        AbsoluteConfigKey(ConfigurationKey.pdfDeadlineSeconds.components): 10,
        AbsoluteConfigKey(ConfigurationKey.pdfMemoryMiB.components): 2048,
        AbsoluteConfigKey(ConfigurationKey.contentCheckSeconds.components): 0,
        AbsoluteConfigKey(ConfigurationKey.roots.components): ConfigValue(.stringArray([]), isSecret: false),
        AbsoluteConfigKey(ConfigurationKey.logLevel.components): "info",
        AbsoluteConfigKey(ConfigurationKey.logFormat.components): "text",
        AbsoluteConfigKey(ConfigurationKey.coordinationPollMicroseconds.components): 200,
        AbsoluteConfigKey(ConfigurationKey.coordinationHandOverPollMicroseconds.components): 500,
        AbsoluteConfigKey(ConfigurationKey.coordinationHostPollMicroseconds.components): 100,
        AbsoluteConfigKey(ConfigurationKey.workersPollMicroseconds.components): 2000,
        AbsoluteConfigKey(ConfigurationKey.workersIdlePollMicroseconds.components): 1500,
    ]

    /// Reads the configuration from its four sources and checks every value.
    ///
    /// Precedence, highest first: `overrides` (the command-line flags), `environment` (`QUIRE_HOST`, `QUIRE_PORT`,
    /// `QUIRE_STORE`, `QUIRE_ROOTS` colon-separated, `QUIRE_TOKEN`, `QUIRE_COORDINATION_SCOPE`,
    /// `QUIRE_MAX_UPLOAD_BYTES`, `QUIRE_MAX_OPEN_DOCUMENTS`, `QUIRE_MAX_DPI`, `QUIRE_UPLOAD_BUDGET_BYTES`,
    /// `QUIRE_HEADER_TIMEOUT_SECONDS`, `QUIRE_IDLE_TIMEOUT_SECONDS`, `QUIRE_MIN_BODY_BYTES_PER_SECOND`,
    /// `QUIRE_BODY_TIMEOUT_SECONDS`, `QUIRE_MAX_CONNECTIONS`, `QUIRE_PDF_WORKERS`,
    /// `QUIRE_PDF_DEADLINE_SECONDS`, `QUIRE_PDF_MEMORY_MIB`, `QUIRE_DATABASE`, `QUIRE_CONTENT_CHECK_SECONDS`,
    /// `QUIRE_LOG_LEVEL`, `QUIRE_LOG_FORMAT`, `QUIRE_COORDINATION_POLL_MICROSECONDS`,
    /// `QUIRE_COORDINATION_HAND_OVER_POLL_MICROSECONDS`, `QUIRE_COORDINATION_HOST_POLL_MICROSECONDS`,
    /// `QUIRE_WORKERS_POLL_MICROSECONDS`, `QUIRE_WORKERS_IDLE_POLL_MICROSECONDS`), the
    /// JSON file
    /// `configFile`, then the
    /// built-in defaults. Relative paths are resolved against `workingDirectory`.
    /// - Throws: ``ConfigurationError``, whose description is the one line to print before stopping: the file is
    ///   missing, unreadable, not a JSON object or has an unknown key; or a value is invalid (it names the key, the
    ///   value and its source).
    public static func load(
        configFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        overrides: ConfigurationOverrides = ConfigurationOverrides(),
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    ) throws(ConfigurationError) -> StoreConfiguration {
        var layers: [ConfigurationLayers.Layer] = [
            .init(kind: .flags, snapshot: overrides.snapshot),
            .init(kind: .environment, snapshot: environmentSnapshot(environment)),
        ]
        if let configFile {
            let snapshot = try fileSnapshot(configFile, workingDirectory)
            layers.append(.init(kind: .file(path: configFile), snapshot: snapshot))
        }
        let defaults = InMemoryProvider(name: "defaults", values: builtInDefaults).snapshot()
        layers.append(.init(kind: .builtInDefaults, snapshot: defaults))
        let layered = ConfigurationLayers(layers: layers)
        return try ConfigurationValidator(layers: layered, workingDirectory: workingDirectory).configuration()
    }

    /// The environment layer: swift-configuration's provider, keys prefixed with `quire` (so `port` is read from
    /// `QUIRE_PORT`), lists separated by colons as in `PATH`, the token marked secret.
    private static func environmentSnapshot(_ environment: [String: String]) -> any ConfigSnapshot {
        EnvironmentVariablesProvider(
            environmentVariables: environment,
            secretsSpecifier: .specific([
                ConfigurationKey.token.environmentVariable, ConfigurationKey.database.environmentVariable,
            ]),
            arraySeparator: ":"
        )
        .prefixKeys(with: "quire")
        .snapshot()
    }

    /// The file layer: the JSON file read once, checked for unknown keys, parsed by swift-configuration.
    private static func fileSnapshot(_ path: String, _ workingDirectory: URL) throws(ConfigurationError)
        -> any ConfigSnapshot
    {
        let url = URL(fileURLWithPath: path, relativeTo: workingDirectory)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw .unreadableFile(path: path, reason: "no such file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadableFile(path: path, reason: oneLine(error.localizedDescription))
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .unreadableFile(path: path, reason: "not valid JSON (\(oneLine(error.localizedDescription)))")
        }
        guard let dictionary = object as? [String: Any] else {
            throw .unreadableFile(path: path, reason: "the top level is not a JSON object")
        }
        let knownKeys = ConfigurationKey.all.map(\.name)
        if let unknown = dottedKeys(of: dictionary).first(where: { !knownKeys.contains($0) }) {
            throw .unknownKey(key: unknown, path: path, knownKeys: knownKeys)
        }
        do {
            return try JSONSnapshot(data: data.bytes, providerName: path, parsingOptions: .default)
        } catch {
            throw .unreadableFile(path: path, reason: oneLine(String(describing: error)))
        }
    }

    /// Every leaf key of a JSON object, nested objects joined with dots, sorted.
    private static func dottedKeys(of dictionary: [String: Any], prefix: String = "") -> [String] {
        dictionary.flatMap { key, value -> [String] in
            let path = prefix.isEmpty ? key : "\(prefix).\(key)"
            if let nested = value as? [String: Any] { return dottedKeys(of: nested, prefix: path) }
            return [path]
        }
        .sorted()
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
