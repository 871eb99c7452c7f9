import CoordinationArbiter

/// Turns frames into bytes: `[u32 length][u8 type][payload]` (see ``WireFrame`` for each payload).
///
/// Encoding takes two passes over the frame: ``WireSizeCounter`` checks the values and counts the bytes, then
/// ``WireBufferWriter`` stores them into memory allocated once, at the right size.
enum WireEncoder {
    /// The bytes of `frame`.
    ///
    /// Throws ``WireError/frameTooLarge(length:)`` for a frame over ``WireProtocol/maximumFrameLength`` (a huge
    /// snapshot), ``WireError/invalidPath(_:)`` for a path the protocol cannot carry, and what decoding would
    /// throw for a ``PresenterFailure`` that is not a ``RemotePresenterError`` encoding.
    static func encode(_ frame: WireFrame) throws(WireError) -> [UInt8] {
        let size = WireProtocol.lengthFieldSize + (try length(of: frame))
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initializedCount in
            store(frame, into: UnsafeMutableRawBufferPointer(buffer))
            initializedCount = size
        }
    }

    /// Appends the bytes of `frame` to `buffer` (a buffer reused for many frames saves allocations); on error,
    /// `buffer` is left as it was. Throws as ``encode(_:)``.
    static func encode(_ frame: WireFrame, appendingTo buffer: inout [UInt8]) throws(WireError) {
        let size = WireProtocol.lengthFieldSize + (try length(of: frame))
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: size))
        buffer.withUnsafeMutableBytes { store(frame, into: UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
    }

    /// The number of bytes ``encode(_:)`` makes of `frame`, length field included; throws as ``encode(_:)``.
    static func size(of frame: WireFrame) throws(WireError) -> Int {
        WireProtocol.lengthFieldSize + (try length(of: frame))
    }

    /// The value of the frame's length field (type byte and payload), after checking every value.
    private static func length(of frame: WireFrame) throws(WireError) -> Int {
        var counter = WireSizeCounter(frameType: frame.type)
        try writePayload(of: frame, to: &counter)
        let length = 1 + counter.size
        guard length <= WireProtocol.maximumFrameLength else { throw .frameTooLarge(length: length) }
        return length
    }

    /// Stores the whole frame into `bytes`, which has exactly its size.
    private static func store(_ frame: WireFrame, into bytes: UnsafeMutableRawBufferPointer) {
        var writer = WireBufferWriter(bytes)
        writer.write(UInt32(truncatingIfNeeded: bytes.count - WireProtocol.lengthFieldSize))
        writer.write(frame.type.rawValue)
        writePayload(of: frame, to: &writer)
        precondition(writer.isFull, "WireSizeCounter and WireBufferWriter disagree")
    }

    /// Writes the payload of `frame` (everything after the type byte).
    private static func writePayload<Sink: WireSink>(of frame: WireFrame, to writer: inout Sink) throws(Sink.Failure) {
        switch frame {
        case .hello(let version, let pid, let commandLine, let lowestVersion):
            writer.write(version)
            writer.write(pid)
            try writer.writeString(commandLine)
            if let lowestVersion { writer.write(lowestVersion) }
        case .welcome(let version, let clientID):
            writer.write(version)
            writer.write(clientID.rawValue)
        case .refused(let reason):
            try writer.writeString(reason)
        case .presenterRegistered(let presenter, let purpose, let path, let observesUncoordinatedChanges):
            writer.write(presenter.rawValue)
            try writer.writeString(purpose.rawValue)
            try writer.write(path) { writer, path throws(Sink.Failure) in try writer.write(path) }
            writer.write(observesUncoordinatedChanges)
        case .presenterMoved(let presenter, let path):
            writer.write(presenter.rawValue)
            try writer.write(path) { writer, path throws(Sink.Failure) in try writer.write(path) }
        case .presenterRemoved(let presenter):
            writer.write(presenter.rawValue)
        case .accessRequested(let request, let purpose, let intents, let timeout, let nestedIn, let reclaim, let age):
            writer.write(request.rawValue)
            try writer.writeString(purpose.rawValue)
            try writer.write(intents) { writer, intent throws(Sink.Failure) in try writer.write(intent) }
            try writer.write(timeout) { writer, timeout in writer.write(timeout) }
            try writer.write(nestedIn) { writer, outer in writer.write(outer.rawValue) }
            writer.write(reclaim)
            writer.write(age)
        case .accessEnded(let request, let presence):
            writer.write(request.rawValue)
            try writer.write(presence) { writer, presence in writer.write(presence) }
        case .cancelRequested(let request):
            writer.write(request.rawValue)
        case .itemMoved(let request, let from, let to):
            writer.write(request.rawValue)
            try writer.write(from)
            try writer.write(to)
        case .presenterReplied(let message, let failure):
            writer.write(message.rawValue)
            try writer.write(failure) { writer, failure throws(Sink.Failure) in try writer.writeEncoded(failure) }
        case .snapshotRequest(let tag):
            writer.write(tag)
        case .versionsChanged(let path, let notice):
            try writer.write(path)
            try writer.write(notice)
        case .redeclared:
            break
        case .packageExtensions(let extensions):
            try writer.write(extensions) { writer, text throws(Sink.Failure) in try writer.writeString(text) }
        case .grant(let request, let paths, let reportsPresence):
            writer.write(request.rawValue)
            try writer.write(paths) { writer, path throws(Sink.Failure) in try writer.write(path) }
            writer.write(reportsPresence)
        case .fail(let request, let failure):
            writer.write(request.rawValue)
            try writer.write(failure)
        case .deliver(let delivery):
            try writer.write(delivery)
        case .snapshotResponse(let tag, let snapshot):
            writer.write(tag)
            try writer.write(snapshot)
        case .handOverBoard(let name, let cell, let generation):
            try writer.writeString(name)
            writer.write(cell)
            writer.write(generation)
        }
    }
}
