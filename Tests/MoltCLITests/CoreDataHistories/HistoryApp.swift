import Foundation
import Molt
import MoltTooling

/// A real app's Core Data history in `../shared/coredata-models/`, and what the mapping models it shipped did.
struct HistoryApp: CustomStringConvertible, @unchecked Sendable {  // immutable static values; StepEffect holds closures
    var name: String
    /// The `.xcdatamodeld`, relative to `../shared/coredata-models/`.
    var model: String
    /// Keyed by the version a step migrates to (Molt numbers: Core Data version i is i.json).
    var effects: [Int: [StepEffect]] = [:]

    var description: String { name }

    static let all: [HistoryApp] = [mastodon, simplenote, wire, woocommerce]

    /// Mastodon's `CoreData 3` points the required `MastodonUser.notifications` at the new entity `Notification`
    /// (every user starts with none), and `CoreData 4` adds the required `MastodonUser.showingReblogs`.
    static let mastodon = HistoryApp(
        name: "Mastodon", model: "mastodon/CoreData.xcdatamodeld",
        effects: [
            3: [.keepsShortOwners(entity: "MastodonUser", relationship: "notifications")],
            4: [.keepsShortOwners(entity: "MastodonUser", relationship: "showingReblogs")],
        ])

    static let simplenote = HistoryApp(name: "Simplenote", model: "simplenote/Simplenote.xcdatamodeld")

    /// Wire's `zmessaging1.27` adds the required `UserClient.ignoredByClients`, and `zmessaging2.78.0` (version 67)
    /// the required `Conversation.participantRoles`: every existing object starts with none.
    static let wire = HistoryApp(
        name: "Wire", model: "wire/zmessaging.xcdatamodeld",
        effects: [
            2: [.keepsShortOwners(entity: "UserClient", relationship: "ignoredByClients")],
            67: [.keepsShortOwners(entity: "Conversation", relationship: "participantRoles")],
        ])

    /// WooCommerce shipped mapping models for ten steps (`MIGRATIONS.md`, `MigrationTests.swift`, the 9→10
    /// `xcmapping.xml`): 9→10 sets the new `Order.statusKey` from `status` (and, like 45→46, turns an Int64 into a
    /// Decimal: an inferred widening in Molt), 31→32 renames `Attribute` to
    /// `GenericAttribute` keeping its data, 32→33 sets `Product.date` from `dateCreated`, 111→112 sets
    /// `Site.visibility` to 1 where `isPublic` was true, and five delete every object of an entity they keep.
    static let woocommerce = HistoryApp(
        name: "WooCommerce", model: "woocommerce/WooCommerce.xcdatamodeld",
        effects: [
            10: [.computes(entity: "Order", attribute: "statusKey", sql: "status", value: { $0["status"] ?? .null })],
            27: [.empties(["ProductCategory"])],
            29: [.empties(["ProductTag"])],
            32: [.renamesEntity(from: "Attribute", to: "GenericAttribute")],
            33: [
                .computes(
                    entity: "Product", attribute: "date", sql: "dateCreated", value: { $0["dateCreated"] ?? .null })
            ],
            40: [.empties(["ProductAttribute"])],
            43: [.empties(["SiteVisitStats", "TopEarnerStats"])],
            75: [.empties(["Customer", "CustomerSearchResult"])],
            112: [
                .computes(
                    entity: "Site", attribute: "visibility", sql: "CASE WHEN isPublic THEN 1 ELSE 0 END",
                    value: { $0["isPublic"] == .bool(true) ? .int(1) : .int(0) })
            ],
        ])
}
