/// Something of a Core Data model that a Molt schema cannot state exactly (issue 22), and how the converter
/// writes it when told to.
///
/// The converter refuses every approximation unless its ``Kind`` is accepted (`--approximate KIND`, or
/// `--approximate all`); accepted ones are printed, one line each.
package struct CoreDataApproximation: Equatable, CustomStringConvertible {
    /// The classes of approximation, each accepted by its own `--approximate` value.
    package enum Kind: String, CaseIterable, Comparable, Sendable {
        /// A sub-entity written as a separate entity with its parent's properties; links to a parent that may
        /// hold a sub-entity.
        case inheritance
        /// An optional to-many relationship whose minimum count above 1 holds only when it is not empty, written
        /// without the minimum (a required to-one is written required, `Relationship.isOptional` false; a
        /// required to-many with its minimum, `Relationship.minimumCount`).
        case requiredRelationships = "required-relationships"
        /// A to-many relationship with a maximum count written without it.
        case relationshipCounts = "relationship-counts"
        /// An index or uniqueness constraint over a to-many relationship (or a property not stored), left out.
        case relationshipIndexes = "relationship-indexes"
        /// The `No Action` delete rule written as `nullify`.
        case noAction = "no-action"
        /// A default value that is not of the attribute's type, read as Core Data's model compiler reads it.
        case defaults

        package static func < (a: Kind, b: Kind) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    package var kind: Kind
    /// The Core Data version it is found in.
    package var version: String
    package var entity: String
    package var property: String?
    /// What the model says and what the snapshot writes instead.
    package var what: String

    /// `Model 12: Order.lines: the uniqueness constraint on (…) includes …`.
    package var description: String {
        "\(version): \(entity)\(property.map { ".\($0)" } ?? ""): \(what)"
    }
}

/// Which approximations the converter may write: the values of `--approximate`.
package struct AcceptedApproximations: Equatable {
    package var kinds: Set<CoreDataApproximation.Kind>

    package init(kinds: Set<CoreDataApproximation.Kind>) { self.kinds = kinds }

    package static let none = AcceptedApproximations(kinds: [])
    package static let all = AcceptedApproximations(kinds: Set(CoreDataApproximation.Kind.allCases))

    package func accepts(_ kind: CoreDataApproximation.Kind) -> Bool { kinds.contains(kind) }
}
