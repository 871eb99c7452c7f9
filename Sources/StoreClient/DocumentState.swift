import QuireAPI

/// A document's state, as the service reports it: openapi.yaml's `DocumentState` (`clean`, `dirty`, `conflict`,
/// `deleted`, `damaged`), generated in QuireAPI.
public typealias DocumentState = Components.Schemas.DocumentState
