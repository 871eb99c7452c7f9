/// A closure kept in a lock as a class reference.
///
/// A closure stored directly as a `Mutex`'s value (`Mutex<((T) -> Void)?>`) is re-wrapped in a reabstraction thunk
/// each time `withLock` reads it (the inout access writes it back converted): after some 35,000 reads on a dispatch
/// thread its calls overflow the stack. A class reference is copied as it is, so the closure inside never changes.
package final class Callback<Argument>: Sendable {
    /// The closure.
    package let call: @Sendable (Argument) -> Void

    /// Keeps `call`.
    package init(_ call: @escaping @Sendable (Argument) -> Void) {
        self.call = call
    }
}
