#if DEBUG  // @testable needs a debug build (or -enable-testing)
import CoordinationArbiter
@testable import FileCoordination

#if canImport(Glibc)
    import Glibc
#endif

/// Frames a hostile peer might send, for the decoder to run through under a memory limit.
enum HostileCorpus {
    /// Decodes huge lengths and counts of every kind, then random and mutated frames; returns if nothing trapped.
    static func decodeAll() {
        let huge32 = WireTesting.le(UInt32.max)
        let id = WireTesting.le(UInt64(1))
        var inputs: [[UInt8]] = [
            huge32,
            WireTesting.le(UInt32(WireProtocol.maximumFrameLength)) + [0x20] + id + huge32,
            WireTesting.frame(type: 0x20, payload: id + huge32),
            WireTesting.frame(type: 0x13, payload: id + huge32),
            WireTesting.frame(type: 0x13, payload: id + WireTesting.string([]) + huge32),
            WireTesting.frame(type: 0x23, payload: id + huge32),
            WireTesting.frame(type: 0x23, payload: id + WireTesting.le(UInt32(0)) + huge32),
            WireTesting.frame(type: 0x21, payload: id + [1] + WireTesting.le(UInt16.max) + huge32),
            WireTesting.frame(type: 0x17, payload: id + [1] + huge32),
        ]
        var random = SeededGenerator(seed: 4)
        for _ in 0..<2_000 {
            let type = WireFrameType.allCases.randomElement(using: &random)!.rawValue
            inputs.append(
                WireTesting.frame(type: type, payload: random.bytes(count: Int.random(in: 0...64, using: &random))))
        }
        for input in inputs { _ = WireTesting.decodeAll(input) }
    }
}

/// Caps this process's address space, so that a large allocation fails (and crashes the process).
enum MemoryLimit {
    /// Limits the address space to its current size plus `headroom` bytes.
    static func capAddressSpace(headroom: Int) {
        #if canImport(Glibc)
            // /proc/self/statm: the first field is the address space size in pages.
            guard let file = fopen("/proc/self/statm", "r") else { fatalError("cannot read /proc/self/statm") }
            var pages = 0
            _ = withUnsafeMutablePointer(to: &pages) { pointer in
                withVaList([pointer]) { vfscanf(file, "%ld", $0) }
            }
            fclose(file)
            let limit = rlim_t(pages * Int(sysconf(Int32(_SC_PAGESIZE))) + headroom)
            var cap = rlimit(rlim_cur: limit, rlim_max: limit)
            guard setrlimit(Int32(RLIMIT_AS.rawValue), &cap) == 0 else { fatalError("setrlimit failed") }
        #endif
    }
}
#endif
