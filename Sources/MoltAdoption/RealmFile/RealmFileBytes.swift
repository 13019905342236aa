import Foundation
import Molt

/// The bytes of a Realm file, mapped read-only: every read is checked against the file's size, so a damaged
/// offset throws instead of reading outside the mapping.
final class RealmFileBytes: @unchecked Sendable {
    /// The file's size in bytes.
    let size: Int
    /// The file, for messages.
    let url: URL
    private let base: UnsafeMutableRawPointer?

    /// Maps the file at `url` read-only (nothing is written to it, no `.lock` or `.note` is made beside it).
    ///
    /// - Throws: `MoltError.storeNotFound` when there is no file, `.ioError` when it cannot be read.
    init(url: URL) throws {
        self.url = url
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            if errno == ENOENT {
                throw MoltError(.storeNotFound, "There is no Realm file at \(url.path).")
            }
            throw MoltError(.ioError, "The Realm file at \(url.path) cannot be opened for reading: \(reason).")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw MoltError(
                .ioError, "The Realm file at \(url.path) cannot be read: \(String(cString: strerror(errno))).")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw MoltError(.ioError, "\(url.path) is not a regular file, so it is not a Realm file.")
        }
        size = Int(status.st_size)
        if size == 0 {
            base = nil
            return
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            throw MoltError(
                .ioError, "The Realm file at \(url.path) cannot be mapped: \(String(cString: strerror(errno))).")
        }
        base = mapped
    }

    deinit {
        if let base { munmap(base, size) }
    }

    /// Throws unless `count` bytes from `offset` lie inside the file; `what` names them in the message.
    @inline(__always)
    func check(_ offset: Int, _ count: Int, _ what: @autoclosure () -> String) throws {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw RealmFileBytes.damaged(
                url, "\(what()) at offset \(offset) (\(count) bytes) lies outside the file (\(size) bytes)")
        }
    }

    /// The byte at `offset`, which the caller has checked.
    @inline(__always)
    func byte(_ offset: Int) -> UInt8 { base!.load(fromByteOffset: offset, as: UInt8.self) }

    /// The little-endian unsigned integer of `width` bytes (1, 2, 4 or 8) at `offset`, checked by the caller.
    @inline(__always)
    func unsigned(_ offset: Int, width: Int) -> UInt64 {
        switch width {
        case 1: return UInt64(base!.load(fromByteOffset: offset, as: UInt8.self))
        case 2: return UInt64(UInt16(littleEndian: base!.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(littleEndian: base!.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        default: return UInt64(littleEndian: base!.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
    }

    /// The 8-byte little-endian value at `offset`, bounds-checked.
    func checkedUInt64(_ offset: Int, _ what: @autoclosure () -> String) throws -> UInt64 {
        try check(offset, 8, what())
        return unsigned(offset, width: 8)
    }

    /// A copy of `count` bytes from `offset`, which the caller has checked.
    func bytes(_ offset: Int, _ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: base! + offset, count: count))
    }

    /// `count` bytes from `offset` as `Data`, which the caller has checked.
    func data(_ offset: Int, _ count: Int) -> Data {
        guard count > 0 else { return Data() }
        return Data(bytes: base! + offset, count: count)
    }

    /// `count` bytes from `offset` decoded as UTF-8, which the caller has checked; nil when they are not UTF-8.
    func string(_ offset: Int, _ count: Int) -> String? {
        guard count > 0 else { return "" }
        let buffer = UnsafeRawBufferPointer(start: base! + offset, count: count)
        // Decoding replaces what is not UTF-8 with U+FFFD: the bytes are UTF-8 when they come back unchanged.
        let text = String(decoding: buffer, as: UTF8.self)
        return text.utf8.elementsEqual(buffer) ? text : nil
    }

    /// The error for a file whose structure is damaged: names the file, the problem and what to do.
    static func damaged(_ url: URL, _ problem: String) -> MoltError {
        MoltError(
            .corruptStore,
            "The Realm file at \(url.path) is damaged: \(problem). Nothing was read from it; restore it from a backup, or open it once with the app's Realm release (which may repair or refuse it) and try again."
        )
    }

    func damaged(_ problem: String) -> MoltError { Self.damaged(url, problem) }
}
