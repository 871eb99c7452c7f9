import Hummingbird
import NIOCore
import StoreCore

/// The request context of every route of the service.
///
/// JSON request bodies are decoded up to ``maxUploadSize`` (1 MiB: metadata, annotations, a list of paths). PDF
/// uploads do not go through the decoder: their route reads the body itself up to the configured
/// ``StoreConfiguration/maxUploadBytes``.
public struct StoreRequestContext: RequestContext {
    /// Hummingbird's per-request state: logger (with `hb.request.id`), route parameters, endpoint path.
    public var coreContext: CoreRequestContextStorage

    /// The connection the request arrived on (the event stream reads its ``ResponseBacklog``).
    let channel: any Channel

    /// Makes the context for a request arriving on the server.
    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }

    /// The largest JSON body decoded, in bytes: larger ones are answered 413.
    public var maxUploadSize: Int { 1 << 20 }
}
