import Foundation
import Molt

/// How a store's write transactions tell other servers' observations what they wrote: `NOTIFY` on the store's
/// channel, `molt_` and the namespace, sent in the transaction so that PostgreSQL delivers it only if it
/// commits; the payload is the sender (the database object, so that it skips its own) and the tables, one a
/// line, or the sender alone for "any table" (a migration, or too many tables for a payload's 8000 bytes).
enum PostgresCommitNotices {
    /// The store's channel: `molt_` and the namespace, cut to PostgreSQL's 63 bytes of an identifier.
    static func channel(_ namespace: String) -> String {
        var channel = "molt_"
        for character in namespace {
            guard channel.utf8.count + String(character).utf8.count <= 63 else { break }
            channel.append(character)
        }
        return channel
    }

    /// The payload of a notice of `sender`'s commit of `tables` (nil: any table).
    static func payload(sender: String, tables: Set<String>?) -> String {
        guard let tables else { return sender }
        let full = ([sender] + tables.sorted()).joined(separator: "\n")
        return full.utf8.count < 8000 ? full : sender
    }

    /// What a notice says: nil when `sender` sent it (a database hears its own commits as it makes them), else
    /// the tables written (an inner nil: any table).
    static func tables(in payload: String, ignoring sender: String) -> Set<String>?? {
        var lines = payload.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let from = lines.first, from != sender else { return nil }
        lines.removeFirst()
        return .some(lines.isEmpty ? nil : Set(lines))
    }
}

extension PostgresStoreConnection {
    /// `SELECT pg_notify(channel, payload)`: delivered to the listeners when the transaction commits, and not at
    /// all when it rolls back.
    func announceCommit(of tables: Set<String>) throws {
        guard let sender else { return }
        try notify(sender: sender, tables: tables)
    }

    /// Announces a commit of `tables` (nil: any table), sent without waiting for it: the `COMMIT` that follows
    /// on the session waits for it, and its outcome is checked then, so a write costs no extra round trip.
    func notify(sender: String, tables: Set<String>?) throws {
        let literal = { PostgresDialect.shared.literal(.string($0)) }
        let payload = PostgresCommitNotices.payload(sender: sender, tables: tables)
        try link.sendWithoutWaiting(
            "SELECT pg_notify(\(literal(PostgresCommitNotices.channel(namespace))), \(literal(payload)))",
            context: .objects)
    }
}
