import Foundation

/// Copying, listing and removing a store together with the files SQLite keeps beside it.
enum StoreFiles {
    /// The suffixes of the files SQLite keeps beside a database.
    static let companions = ["-wal", "-shm", "-journal"]

    /// The store's file and whichever companions exist.
    static func existing(_ store: URL) -> [URL] {
        ([""] + companions).map { URL(fileURLWithPath: store.path + $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Copies a store and its companions to `destination` (a store path), replacing what is there.
    static func copy(_ store: URL, to destination: URL) throws {
        remove(destination)
        for source in existing(store) {
            let suffix = String(source.path.dropFirst(store.path.count))
            try FileManager.default.copyItem(at: source, to: URL(fileURLWithPath: destination.path + suffix))
        }
    }

    /// Removes a store and its companions.
    static func remove(_ store: URL) {
        for suffix in [""] + companions { try? FileManager.default.removeItem(atPath: store.path + suffix) }
    }

    /// The size of a file in bytes (0 when it does not exist).
    static func size(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0
    }

    /// Writes `text` to `url`.
    static func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }

    /// `text` made safe as a file name: letters, digits, `-`, `_` and `.` kept, anything else `_`; at most 120
    /// characters.
    static func safeName(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            }.prefix(120))
    }

    /// A fresh, empty folder at `url` (whatever was there is removed).
    @discardableResult
    static func freshFolder(_ url: URL) throws -> URL {
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
