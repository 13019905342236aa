import Foundation

/// The files of a folder at one moment: each regular file's size and a hash of its bytes, so that a later state
/// tells whether a command changed, created or removed any of them.
///
/// SQLite's shared-memory index (`-shm`) is only listed, not hashed: a reader of a WAL store updates its read
/// marks, which is not a change to the store. Its appearance or disappearance still counts.
///
/// ```swift
/// let before = FileState(of: folder)
/// … run a read command …
/// let changes = FileState(of: folder).changes(since: before)   // ["store.sqlite: bytes changed"]
/// ```
struct FileState: Equatable, Sendable {
    struct Entry: Equatable, Sendable {
        var size: Int
        var hash: UInt64?
    }

    var entries: [String: Entry]

    init(of folder: URL) {
        var entries: [String: Entry] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names {
            let url = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                entries[name + "/"] = Entry(size: 0, hash: nil)
                continue
            }
            let size = ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? -1
            entries[name] = Entry(size: size, hash: name.hasSuffix("-shm") ? nil : FNV.hash(fileAt: url))
        }
        self.entries = entries
    }

    /// What differs from `earlier`, one line per file; empty when nothing changed.
    func changes(since earlier: FileState) -> [String] {
        var lines: [String] = []
        for name in Set(entries.keys).union(earlier.entries.keys).sorted() {
            switch (earlier.entries[name], entries[name]) {
            case (nil, let now?): lines.append("\(name) appeared (\(now.size) bytes)")
            case (let then?, nil): lines.append("\(name) was removed (it had \(then.size) bytes)")
            case (let then?, let now?) where then != now:
                lines.append(
                    then.size == now.size
                        ? "\(name): its bytes changed"
                        : "\(name): its size changed from \(then.size) to \(now.size) bytes")
            default: break
            }
        }
        return lines
    }
}

/// The 64-bit FNV-1a hash: fast, and enough to notice that a file or a table changed.
struct FNV {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        value = hash
    }

    mutating func add(_ data: Data) { data.withUnsafeBytes { add($0) } }

    mutating func add(_ text: String) {
        var copy = text
        copy.withUTF8 { add(UnsafeRawBufferPointer($0)) }
        add(UInt64(text.utf8.count))
    }

    mutating func add(_ number: UInt64) {
        withUnsafeBytes(of: number.littleEndian) { add($0) }
    }

    /// The hash of a file's bytes, or nil when it cannot be read.
    static func hash(fileAt url: URL) -> UInt64? {
        guard let data = try? Data(contentsOf: url, options: .alwaysMapped) else { return nil }
        var fnv = FNV()
        fnv.add(data)
        return fnv.value
    }

    /// The hash of a string, to derive independent random streams from one seed.
    static func hash(_ text: String) -> UInt64 {
        var fnv = FNV()
        fnv.add(text)
        return fnv.value
    }
}
