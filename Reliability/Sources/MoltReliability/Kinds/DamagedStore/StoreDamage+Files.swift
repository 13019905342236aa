import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Damage to the file itself and to what lies beside it: the header, random bits, a cut, the leftovers of a
/// writer that died, and files that are no store at all.
extension StoreDamage {
    /// Fields of the 100-byte SQLite header set to values SQLite or Molt must refuse or survive.
    static func header(base: JournalMode) -> [StoreDamage] {
        let fields: [(String, Int, [UInt8])] = [
            ("magic", 0, Array("SQLite format 4\0".utf8)),
            ("page-size-0", 16, [0, 0]), ("page-size-768", 16, [3, 0]), ("page-size-512", 16, [2, 0]),
            ("page-size-65536", 16, [0, 1]),
            ("write-version-3", 18, [3]), ("read-version-3", 19, [3]), ("reserved-255", 20, [255]),
            ("payload-fractions", 21, [0, 0, 0]), ("change-counter", 24, [0xDE, 0xAD, 0xBE, 0xEF]),
            ("size-in-pages-huge", 28, bigEndian(0xFFFF_FFF0)), ("size-in-pages-zero", 28, bigEndian(0)),
            ("freelist-trunk", 32, bigEndian(0xFFFF)), ("freelist-count", 36, bigEndian(1000)),
            ("schema-cookie", 40, bigEndian(0x1234_5678)), ("schema-format-9", 44, bigEndian(9)),
            ("autovacuum-root", 52, bigEndian(1)), ("encoding-utf16le", 56, bigEndian(2)),
            ("encoding-9", 56, bigEndian(9)),
            ("incremental-vacuum", 64, bigEndian(1)), ("version-valid-for", 92, bigEndian(0xFFFF_FFFF)),
        ]
        return fields.map { name, offset, bytes in
            StoreDamage(family: "header", name: "header-\(name)-\(base.rawValue)", base: base) { store, _ in
                try overwrite(store, at: offset, with: bytes)
            }
        }
    }

    /// Bits flipped in pages: the first (the schema), the second, the last, and `count` random pages.
    static func bitFlips(pages: Int, pageSize: Int, count: Int, random: inout SeededGenerator) -> [StoreDamage] {
        var chosen = [1, min(2, pages), pages]
        chosen += (0..<count).map { _ in Int.random(in: 1...max(1, pages), using: &random) }
        return chosen.enumerated().map { index, page in
            let flips = Int.random(in: 1...8, using: &random)
            // The header's first 100 bytes have cases of their own; flip the rest of page 1.
            let low = page == 1 ? 100 * 8 : 0
            let bits = (0..<flips).map { _ in
                (page - 1) * pageSize * 8 + Int.random(in: low..<(pageSize * 8), using: &random)
            }
            let base: JournalMode = index % 3 == 2 ? .rollback : .wal
            return StoreDamage(
                family: "bit-flip", name: "bit-flip-\(index)-page-\(page)-\(flips)-bits-\(base.rawValue)", base: base
            ) { store, _ in
                try flip(store, bits: bits)
            }
        }
    }

    /// The file cut at interesting lengths and at `count` random ones, or lengthened.
    static func truncations(size: Int, pageSize: Int, count: Int, random: inout SeededGenerator) -> [StoreDamage] {
        var lengths = [
            0, 1, 50, 99, 100, 512, pageSize - 1, pageSize, pageSize + 1, 2 * pageSize, size / 2, size - pageSize,
            size - 1,
        ]
        lengths += (0..<count).map { _ in Int.random(in: 0..<size, using: &random) }
        var damages = lengths.enumerated().map { index, length in
            StoreDamage(family: "truncation", name: "truncation-\(index)-to-\(length)-bytes") { store, _ in
                try truncate(store, to: length)
            }
        }
        let garbage = random.bytes(777)
        damages += [
            StoreDamage(family: "truncation", name: "truncation-garbage-appended") { store, _ in
                try append(store, garbage)
            },
            StoreDamage(family: "truncation", name: "truncation-empty-page-appended") { store, _ in
                try append(store, [UInt8](repeating: 0, count: pageSize))
            },
        ]
        return damages
    }

    /// Files beside the store as a writer that died leaves them, or as nobody should.
    static func companions(random: inout SeededGenerator) -> [StoreDamage] {
        let garbage = random.bytes(4096)
        return [
            StoreDamage(family: "companions", name: "stale-wal-committed") { store, _ in
                try leaveCompanions(store, statements: [rewritePets], commit: true)
            },
            StoreDamage(family: "companions", name: "stale-wal-committed-without-shm") { store, _ in
                try leaveCompanions(store, statements: [rewritePets], commit: true, copyShm: false)
            },
            StoreDamage(family: "companions", name: "stale-wal-uncommitted-frames") { store, _ in
                try leaveCompanions(store, statements: [rewritePets], commit: false)
            },
            StoreDamage(family: "companions", name: "stale-wal-of-molt-metadata") { store, _ in
                try leaveCompanions(
                    store, statements: ["UPDATE _molt_metadata SET value = '99' WHERE key = 'schemaVersion'"],
                    commit: true)
            },
            StoreDamage(family: "companions", name: "wal-garbage") { store, _ in
                try Data(garbage).write(to: URL(fileURLWithPath: store.path + "-wal"))
            },
            StoreDamage(family: "companions", name: "wal-truncated-header") { store, _ in
                try leaveCompanions(store, statements: [rewritePets], commit: true)
                try truncate(URL(fileURLWithPath: store.path + "-wal"), to: 20)
            },
            StoreDamage(family: "companions", name: "wal-of-another-database") { store, campaign in
                let other = store.deletingLastPathComponent().appendingPathComponent("other")
                try StoreFiles.freshFolder(other)
                defer { try? FileManager.default.removeItem(at: other) }
                let otherStore = other.appendingPathComponent("store.sqlite")
                try StoreFiles.copy(try campaign.pristine(objects: campaign.profile.damagedObjects).wal, to: otherStore)
                try leaveCompanions(
                    otherStore, statements: ["CREATE TABLE \"Elsewhere\" (x)", rewritePets], commit: true)
                try FileManager.default.copyItem(atPath: otherStore.path + "-wal", toPath: store.path + "-wal")
            },
            StoreDamage(family: "companions", name: "shm-garbage") { store, _ in
                try Data(garbage + garbage).write(to: URL(fileURLWithPath: store.path + "-shm"))
            },
            StoreDamage(family: "companions", name: "hot-journal", base: .rollback) { store, _ in
                try leaveCompanions(store, statements: [rewritePets], commit: false)
            },
            StoreDamage(family: "companions", name: "journal-garbage", base: .rollback) { store, _ in
                try Data(garbage).write(to: URL(fileURLWithPath: store.path + "-journal"))
            },
            StoreDamage(family: "companions", name: "journal-empty", base: .rollback) { store, _ in
                try Data().write(to: URL(fileURLWithPath: store.path + "-journal"))
            },
            StoreDamage(family: "companions", name: "hot-journal-truncated", base: .rollback) { store, _ in
                try leaveCompanions(store, statements: [rewritePets], commit: false)
                let journal = URL(fileURLWithPath: store.path + "-journal")
                try truncate(journal, to: StoreFiles.size(journal) / 2)
            },
            StoreDamage(family: "companions", name: "wal-beside-rollback-store", base: .rollback) { store, _ in
                try Data(garbage).write(to: URL(fileURLWithPath: store.path + "-wal"))
            },
        ]
    }

    /// The files a `molt migrate --to TARGET` leaves when SIGKILL stops it at a random moment of its `duration`:
    /// not damage at all, but a reader must still see one consistent version and write nothing.
    static func killedMigrations(target: URL, duration: Double, random: inout SeededGenerator) -> [StoreDamage] {
        (0..<4).map { index in
            let base: JournalMode = index % 2 == 0 ? .wal : .rollback
            let delay = Double.random(in: 0.2..<0.95, using: &random) * duration
            return StoreDamage(
                family: "killed-migration",
                name: String(format: "killed-migration-%d-%@-at-%.0f-ms", index, base.rawValue, delay * 1000),
                base: base
            ) { store, campaign in
                let child = try campaign.molt.spawn(["migrate", store.path, "--to", target.path])
                let deadline = child.started + .nanoseconds(Int64(delay * 1e9))
                while ContinuousClock.now < deadline, !child.poll() { usleep(100) }
                child.killNow()
                _ = child.result()
            }
        }
    }

    /// Files that are no Molt store at all.
    static func notStores(random: inout SeededGenerator) -> [StoreDamage] {
        let noise = random.bytes(8192)
        return [
            StoreDamage(family: "not-a-store", name: "empty-file") { store, _ in try truncate(store, to: 0) },
            StoreDamage(family: "not-a-store", name: "zeros") { store, _ in try Data(count: 8192).write(to: store) },
            StoreDamage(family: "not-a-store", name: "random-bytes") { store, _ in try Data(noise).write(to: store) },
            StoreDamage(family: "not-a-store", name: "text-file") { store, _ in
                try Data("hello, molt\n".utf8).write(to: store)
            },
            StoreDamage(family: "not-a-store", name: "plain-sqlite") { store, _ in
                StoreFiles.remove(store)
                let db = try SQLiteConnection(store, creating: true)
                defer { db.close() }
                try db.execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('not molt')")
            },
            StoreDamage(family: "not-a-store", name: "molt-metadata-only") { store, _ in
                try sql(
                    store,
                    [
                        "PRAGMA foreign_keys = OFF", "DROP TABLE \"Owner_pets\"", "DROP TABLE \"Pet\"",
                        "DROP TABLE \"Owner\"", "DROP TABLE _molt_history",
                    ])
            },
        ]
    }
}
