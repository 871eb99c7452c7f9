import Foundation
import Synchronization

/// A 64-bit XXH64 digest and the length of some bytes: what a provider remembers of the content it last saw, to
/// tell a real change of a file from a `touch` or a rewrite of the same bytes.
///
/// XXH64 (seed 0) is deterministic across processes and launches, so the digest also serves as a stable
/// identifier of in-memory content. Two different contents of the same length collide with probability 2⁻⁶⁴.
public struct ContentFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The number of bytes.
    public let size: UInt64
    /// The XXH64 digest (seed 0) of the bytes.
    public let digest: UInt64

    /// The fingerprint of `data`.
    public init(of data: Data) {
        var hasher = Hasher64()
        data.withUnsafeBytes { hasher.update($0) }
        self = hasher.finish()
    }

    init(size: UInt64, digest: UInt64) {
        self.size = size
        self.digest = digest
    }

    /// How many bytes have been fingerprinted in this process, apart from the checks of files on disk (a
    /// presenter's look at a file it was told changed, or its verification after a write): the bytes a read, a
    /// write or an upload hashed. Counted so that tests can hold a request to hashing its bytes once.
    package static var bytesHashed: Int { hashedBytes.load(ordering: .relaxed) }
    /// How many bytes the checks of files on disk have fingerprinted in this process.
    package static var bytesOfFilesChecked: Int { checkedBytes.load(ordering: .relaxed) }
    private static let hashedBytes = Atomic<Int>(0)
    private static let checkedBytes = Atomic<Int>(0)

    /// "SIZE-DIGEST" in hexadecimal, for logs and entity tags.
    public var description: String {
        String(size, radix: 16) + "-" + String(digest, radix: 16)
    }

    /// Incremental XXH64: feed bytes in any number of pieces, then ``finish()``.
    struct Hasher64 {
        private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
        private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
        private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
        private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

        private var lanes: (UInt64, UInt64, UInt64, UInt64) = (
            prime1 &+ prime2, prime2, 0, 0 &- prime1
        )
        private var buffer = [UInt8](repeating: 0, count: 32)
        private var buffered = 0
        private var total: UInt64 = 0
        /// Whether the bytes are a check of a file on disk (counted in ``bytesOfFilesChecked``).
        private let isFileCheck: Bool

        /// A hasher; `checkingFile` for the check of a file on disk rather than bytes being read or written.
        init(checkingFile: Bool = false) {
            isFileCheck = checkingFile
        }

        /// Adds bytes.
        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            guard var base = bytes.baseAddress, bytes.count > 0 else { return }
            var count = bytes.count
            total &+= UInt64(count)
            if isFileCheck {
                ContentFingerprint.checkedBytes.add(count, ordering: .relaxed)
            } else {
                ContentFingerprint.hashedBytes.add(count, ordering: .relaxed)
            }
            if buffered > 0 {
                let taken = min(32 - buffered, count)
                buffer.withUnsafeMutableBytes {
                    $0.baseAddress!.advanced(by: buffered).copyMemory(from: base, byteCount: taken)
                }
                buffered += taken
                base += taken
                count -= taken
                guard buffered == 32 else { return }
                buffer.withUnsafeBytes { stripe($0.baseAddress!) }
                buffered = 0
            }
            while count >= 32 {
                stripe(base)
                base += 32
                count -= 32
            }
            if count > 0 {
                buffer.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: base, byteCount: count) }
                buffered = count
            }
        }

        /// The fingerprint of everything added.
        func finish() -> ContentFingerprint {
            var hash: UInt64
            if total >= 32 {
                hash =
                    lanes.0.rotatedLeft(1) &+ lanes.1.rotatedLeft(7) &+ lanes.2.rotatedLeft(12)
                    &+ lanes.3.rotatedLeft(18)
                hash = Self.merge(hash, lanes.0)
                hash = Self.merge(hash, lanes.1)
                hash = Self.merge(hash, lanes.2)
                hash = Self.merge(hash, lanes.3)
            } else {
                hash = lanes.2 &+ Self.prime5
            }
            hash &+= total
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + 8 <= buffered {
                    let lane = Self.round(0, raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
                    hash = (hash ^ lane).rotatedLeft(27) &* Self.prime1 &+ Self.prime4
                    offset += 8
                }
                if offset + 4 <= buffered {
                    let word = UInt64(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
                    hash = (hash ^ (word &* Self.prime1)).rotatedLeft(23) &* Self.prime2 &+ Self.prime3
                    offset += 4
                }
                while offset < buffered {
                    hash = (hash ^ (UInt64(raw[offset]) &* Self.prime5)).rotatedLeft(11) &* Self.prime1
                    offset += 1
                }
            }
            hash ^= hash >> 33
            hash &*= Self.prime2
            hash ^= hash >> 29
            hash &*= Self.prime3
            hash ^= hash >> 32
            return ContentFingerprint(size: total, digest: hash)
        }

        private mutating func stripe(_ pointer: UnsafeRawPointer) {
            lanes.0 = Self.round(lanes.0, pointer.loadUnaligned(fromByteOffset: 0, as: UInt64.self).littleEndian)
            lanes.1 = Self.round(lanes.1, pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian)
            lanes.2 = Self.round(lanes.2, pointer.loadUnaligned(fromByteOffset: 16, as: UInt64.self).littleEndian)
            lanes.3 = Self.round(lanes.3, pointer.loadUnaligned(fromByteOffset: 24, as: UInt64.self).littleEndian)
        }

        private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
            (accumulator &+ input &* prime2).rotatedLeft(31) &* prime1
        }

        private static func merge(_ hash: UInt64, _ lane: UInt64) -> UInt64 {
            (hash ^ round(0, lane)) &* prime1 &+ prime4
        }
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
