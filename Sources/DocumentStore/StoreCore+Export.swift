// The store's domain core is part of this module's interface: its users (quire-store, the tests) see the library,
// the catalog and the domain errors through `import DocumentStore`, as before the core became a module of its own.
@_exported import StoreCore
