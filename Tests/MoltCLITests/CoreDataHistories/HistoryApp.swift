import Foundation

/// A real app's Core Data history in `../shared/coredata-models/`, what its mapping models did, and the steps that
/// fail today with their cause.
struct HistoryApp: CustomStringConvertible, @unchecked Sendable {  // immutable static values; StepEffect holds closures
    var name: String
    /// The `.xcdatamodeld`, relative to `../shared/coredata-models/`.
    var model: String
    /// Keyed by the version a step migrates to (Molt numbers: Core Data version i is i.json).
    var effects: [Int: [StepEffect]] = [:]
    /// The steps (by target version) that fail today, each with its cause. When a fix lands, its steps pass, the
    /// test fails naming them, and they leave this list.
    var expectedFailures: [Int: String] = [:]

    var description: String { name }

    static let all: [HistoryApp] = [mastodon, simplenote, wire, woocommerce]

    static let newInverse = "a new inverse starts empty (issue 20 item 3: the lead's fix)"
    static let emptying = "the app's mapping model deleted every object of an entity the new version keeps: the mapping file says `\"empty\": true`, which needs issue 20 item 4 (branch issue20-cli)"

    static let mastodon = HistoryApp(
        name: "Mastodon", model: "mastodon/CoreData.xcdatamodeld",
        expectedFailures: [
            2: "\(newInverse): SearchHistory.account, .hashtag and .status gain the inverses MastodonUser.searchHistories, Tag.searchHistories, Status.searchHistories",
            3: "relationships Status.mentions and Tag.histories become attributes of the same name, and MastodonUser.notifications points to the new entity Notification: Core Data drops their links, and a snapshot cannot declare a property replaced by another of the same name until issue 20 item 4 (branch issue20-cli); convert-model then writes the declarations",
        ])

    static let simplenote = HistoryApp(name: "Simplenote", model: "simplenote/Simplenote.xcdatamodeld")

    static let wire = HistoryApp(
        name: "Wire", model: "wire/zmessaging.xcdatamodeld",
        expectedFailures: [
            12: "\(newInverse): zmessaging2.11 adds User.reactions, the inverse of Reaction.users",
            27: "\(newInverse): zmessaging2.31.0 adds User.membership, the inverse of Member.user",
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
            33: [.computes(entity: "Product", attribute: "date", sql: "dateCreated", value: { $0["dateCreated"] ?? .null })],
            40: [.empties(["ProductAttribute"])],
            43: [.empties(["SiteVisitStats", "TopEarnerStats"])],
            75: [.empties(["Customer", "CustomerSearchResult"])],
            112: [.computes(entity: "Site", attribute: "visibility", sql: "CASE WHEN isPublic THEN 1 ELSE 0 END", value: { $0["isPublic"] == .bool(true) ? .int(1) : .int(0) })],
        ],
        expectedFailures: [
            27: "\(emptying) (ProductCategory; the step also replaces ProductCategory.product by the inverse products)",
            29: "\(emptying) (ProductTag; the step also replaces ProductTag.product by the inverse products)",
            40: "\(emptying) (ProductAttribute)",
            43: "\(emptying) (SiteVisitStats, TopEarnerStats). With issue20-cli's `empty`, which applies delete rules, the cascade of SiteVisitStats.items and TopEarnerStats.items also deletes the items, which a Core Data migration keeps with no link (it runs no delete rule): one of the two must change",
            75: "\(emptying) (Customer, CustomerSearchResult)",
        ])
}
