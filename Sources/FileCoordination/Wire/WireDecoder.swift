import CoordinationArbiter

/// Turns the bytes read from a socket into frames, however the reads split them.
///
/// Feed every read to ``append(_:)-(UnsafeRawBufferPointer)``, then call ``next()`` until it returns nil. A frame
/// is decoded once all its bytes are buffered; a length over ``WireProtocol/maximumFrameLength`` is rejected as
/// soon as its four bytes arrive, before any of the frame is buffered. After an error the decoder stays failed:
/// ``next()`` throws the same error again and appended bytes are dropped, since the stream cannot be trusted.
struct WireDecoder: Sendable {
    /// Received bytes; those before ``start`` are consumed.
    private var buffer: [UInt8] = []
    /// The offset of the first unconsumed byte of ``buffer``.
    private var start = 0
    /// The error that failed the stream, if any.
    private var failure: WireError?

    /// Above this capacity an empty buffer is released instead of kept for the next frames.
    private static let retainedCapacity = 1 << 20

    /// Makes a decoder for a new connection.
    init() {}

    /// The bytes received but not yet returned as frames.
    var bufferedByteCount: Int { buffer.count - start }

    /// Buffers bytes read from the socket.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, !bytes.isEmpty else { return }
        if start == buffer.count {
            if buffer.capacity > Self.retainedCapacity { buffer = [] } else { buffer.removeAll(keepingCapacity: true) }
            start = 0
        } else if start >= buffer.count - start {
            // At least half the buffer is consumed, so moving the rest costs no more than reading it did.
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Buffers bytes read from the socket.
    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next complete frame, or nil until more bytes arrive.
    mutating func next() throws(WireError) -> WireFrame? {
        if let failure { throw failure }
        let available = buffer.count - start
        guard available >= WireProtocol.lengthFieldSize else { return nil }
        var length = 0
        for index in 0..<WireProtocol.lengthFieldSize { length |= Int(buffer[start + index]) << (8 * index) }
        guard length <= WireProtocol.maximumFrameLength else { throw failed(.frameTooLarge(length: length)) }
        guard available - WireProtocol.lengthFieldSize >= length else { return nil }
        let frameStart = start + WireProtocol.lengthFieldSize
        start = frameStart + length
        let decoded = buffer.withUnsafeBytes { raw in
            Result { () throws(WireError) in
                try Self.decodeFrame(UnsafeRawBufferPointer(rebasing: raw[frameStart..<(frameStart + length)]))
            }
        }
        switch decoded {
        case .success(let frame): return frame
        case .failure(let error): throw failed(error)
        }
    }

    /// Fails the stream with `error`: drops what is buffered and returns `error` to throw.
    private mutating func failed(_ error: WireError) -> WireError {
        failure = error
        buffer = []
        start = 0
        return error
    }

    /// Decodes one frame: its type byte and payload, without the length field.
    private static func decodeFrame(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> WireFrame {
        guard let typeByte = bytes.first else { throw .truncatedPayload(nil) }
        guard let type = WireFrameType(rawValue: typeByte) else { throw .unknownFrameType(typeByte) }
        var reader = WireReader(UnsafeRawBufferPointer(rebasing: bytes.dropFirst()), frameType: type)
        let frame = try readPayload(of: type, from: &reader)
        try reader.finish()
        return frame
    }

    /// Reads the payload of a frame of type `type` (layouts in ``WireFrame``).
    private static func readPayload(of type: WireFrameType, from reader: inout WireReader) throws(WireError)
        -> WireFrame
    {
        switch type {
        case .hello:
            // Any version decodes: the host negotiates (``VersionNegotiation``), it does not drop the peer.
            let version = try reader.read(UInt16.self)
            let pid = try reader.read(Int32.self)
            let commandLine = try reader.readString()
            let lowestVersion = reader.remainingCount >= 2 ? try reader.read(UInt16.self) : nil
            return .hello(version: version, pid: pid, commandLine: commandLine, lowestVersion: lowestVersion)
        case .welcome:
            let version = try reader.read(UInt16.self)
            return .welcome(version: version, clientID: ClientID(try reader.read(UInt64.self)))
        case .refused:
            return .refused(reason: try reader.readString())
        case .presenterRegistered:
            let presenter = PresenterID(try reader.read(UInt64.self))
            let purpose = PurposeID(try reader.readString())
            let path = try reader.readOptionalPath()
            return .presenterRegistered(
                presenter, purpose: purpose, path: path,
                observesUncoordinatedChanges: try reader.readBool("observesUncoordinatedChanges"))
        case .presenterMoved:
            let presenter = PresenterID(try reader.read(UInt64.self))
            return .presenterMoved(presenter, path: try reader.readOptionalPath())
        case .presenterRemoved:
            return .presenterRemoved(PresenterID(try reader.read(UInt64.self)))
        case .accessRequested:
            let request = RequestID(try reader.read(UInt64.self))
            let purpose = PurposeID(try reader.readString())
            // An intent takes at least 16 bytes: u16 component count, u8 access, u64 options, bool, u32 count.
            let intents = try reader.readArray(minimumElementSize: 16) { reader throws(WireError) in
                try reader.readIntent()
            }
            let timeout = try reader.readOptional("timeout") { reader throws(WireError) in
                try reader.read(UInt64.self)
            }
            let nestedIn = try reader.readOptional("nestedIn") { reader throws(WireError) in
                RequestID(try reader.read(UInt64.self))
            }
            return .accessRequested(
                request, purpose: purpose, intents: intents, timeout: timeout, nestedIn: nestedIn,
                reclaim: try reader.readBool("reclaim"), age: try reader.read(UInt64.self))
        case .accessEnded:
            let request = RequestID(try reader.read(UInt64.self))
            let presence = try reader.readArray(minimumElementSize: 1) { reader throws(WireError) in
                try reader.readPresence()
            }
            return .accessEnded(request, presence: presence)
        case .itemMoved:
            let request = RequestID(try reader.read(UInt64.self))
            let from = try reader.readPath()
            return .itemMoved(request, from: from, to: try reader.readPath())
        case .cancelRequested:
            return .cancelRequested(RequestID(try reader.read(UInt64.self)))
        case .presenterReplied:
            let message = MessageID(try reader.read(UInt64.self))
            let failure = try reader.readOptional("failure") { reader throws(WireError) in
                try reader.readPresenterFailure()
            }
            return .presenterReplied(message, failure: failure)
        case .snapshotRequest:
            return .snapshotRequest(tag: try reader.read(UInt64.self))
        case .redeclared:
            return .redeclared
        case .versionsChanged:
            let path = try reader.readPath()
            return .versionsChanged(path, try reader.readVersionNotice())
        case .packageExtensions:
            // A string takes at least its u32 byte count.
            let extensions = try reader.readArray(minimumElementSize: 4) { reader throws(WireError) in
                try reader.readString()
            }
            guard extensions.count <= WireProtocol.maximumPackageExtensions,
                extensions.allSatisfy({ !$0.isEmpty && $0.utf8.count <= WireProtocol.maximumPackageExtensionLength })
            else { throw .invalidPackageExtensions(count: extensions.count) }
            return .packageExtensions(extensions)
        case .grant:
            let request = RequestID(try reader.read(UInt64.self))
            // A path takes at least its u16 component count.
            let paths = try reader.readArray(minimumElementSize: 2) { reader throws(WireError) in
                try reader.readPath()
            }
            return .grant(request, paths: paths, reportsPresence: try reader.readBool("reportsPresence"))
        case .fail:
            let request = RequestID(try reader.read(UInt64.self))
            return .fail(request, try reader.readAccessFailure())
        case .deliver:
            return .deliver(try reader.readDelivery())
        case .snapshotResponse:
            let tag = try reader.read(UInt64.self)
            return .snapshotResponse(tag: tag, try reader.readSnapshot())
        case .handOverBoard:
            let name = try reader.readString()
            let cell = try reader.read(UInt64.self)
            return .handOverBoard(name: name, cell: cell, generation: try reader.read(UInt32.self))
        }
    }
}
