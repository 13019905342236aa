import Foundation

/// A bulk copy of rows from another database file into a new store's entities, stated by intent: which rows of the
/// source make an entity's objects, what each source column *means* ("seconds since 2001, as a date"; "16 bytes,
/// as a UUID"), and which `(owner, target[, position])` pairs make each to-many relationship. The engine renders it
/// in its own encoding of Molt's storage format (``SQLConnection/copyRows(_:layout:schema:finishing:)``), writes it
/// in one statement per entity and per relationship, and proves what it wrote against the source in the same
/// transaction, before it commits.
///
/// Only the engine names Molt's tables and columns and encodes its values: a change to how Molt stores a date or a
/// UUID is made once, in the engine, for the object API, the importer and this copy alike. The copy's SQL names only
/// the source's tables (attached as ``sourceSchema``) and columns.
///
/// A copy that cannot be made exactly is *unfit*, never approximate: the engine rolls back and says why
/// (``Outcome/unfit(_:)``), and the caller copies another way (object by object), which names the value.
///
/// ```swift
/// let notes = RowCopy.EntityRows(
///     entity: "Note", rows: "FROM molt_source.\"ZNOTE\" AS c", key: "c.Z_PK",
///     columns: [
///         .init(member: "title", source: "c.ZTITLE", meaning: .text),
///         .init(member: "created", source: "c.ZCREATED", meaning: .secondsSince2001),
///     ])
/// let outcome = try objects.copyRows(RowCopy(source: path, entities: [notes]), identifierMarks: [:])
/// ```
package struct RowCopy: Sendable {
    /// The schema name the source file is attached as; the copy's SQL names its tables `molt_source."T"`.
    package static let sourceSchema = "molt_source"

    /// The path of the source file, which the engine reads on its own connection for the proof.
    package var source: String
    /// The entities copied, in order.
    package var entities: [EntityRows]
    /// The conversions ``Meaning/converted(_:from:)`` calls, by index.
    package var conversions: [Conversion] = []
    /// For tests: SQL run on the new store between the copy and its proof, to show that the proof refuses what it
    /// changes.
    package var beforeProof: String? = nil

    package init(
        source: String, entities: [EntityRows], conversions: [Conversion] = [], beforeProof: String? = nil
    ) {
        self.source = source
        self.entities = entities
        self.conversions = conversions
        self.beforeProof = beforeProof
    }

    /// The rows of one entity.
    package struct EntityRows: Sendable {
        /// The concrete entity whose objects the rows are.
        package var entity: String
        /// `FROM … AS c [WHERE …]`: the source rows of the entity's objects, in the source's SQL.
        package var rows: String
        /// The expression of each row's key, which becomes the object's identifier.
        package var key: String
        /// The entity's attributes and to-one relationships, each read from one expression of a row.
        package var columns: [Column]
        /// The entity's to-many relationships read from pairs.
        package var links: [Link] = []

        package init(entity: String, rows: String, key: String, columns: [Column], links: [Link] = []) {
            self.entity = entity
            self.rows = rows
            self.key = key
            self.columns = columns
            self.links = links
        }
    }

    /// An attribute or to-one relationship of an entity, read from an expression of the source's rows.
    package struct Column: Sendable {
        /// The attribute or relationship.
        package var member: String
        /// The expression that reads it from a row `c`.
        package var source: String
        /// What the source's value is, and so how Molt's is made of it.
        package var meaning: Meaning

        package init(member: String, source: String, meaning: Meaning) {
            self.member = member
            self.source = source
            self.meaning = meaning
        }
    }

    /// What a source value is. A value that is not what its meaning says (another storage class, a text that is not
    /// UTF-8, an integer out of its width, a null where the attribute is required) makes the copy unfit.
    package enum Meaning: Sendable, Equatable {
        /// A text whose bytes are UTF-8, as a string, byte for byte.
        case text
        /// The integer 0 or 1, as a Boolean.
        case bool
        /// An integer that fits 16, 32 or 64 bits.
        case int16, int32, int64
        /// An integer or a real, as a double (an integer to the nearest double).
        case double
        /// An integer or a real that a `Float` holds exactly.
        case float
        /// Seconds since 2001-01-01 (an integer or a real), as a date: the double addition
        /// `Date(timeIntervalSinceReferenceDate:)` makes.
        case secondsSince2001
        /// A blob of 16 bytes, as a UUID.
        case uuidBytes
        /// A blob, as data, byte for byte.
        case bytes
        /// A to-one link: the key of the destination's row, or null.
        case link
        /// A value converted by the copy's conversion at `index` (``RowCopy/conversions``), taken only when it is of
        /// the `input` form.
        case converted(Int, from: ConvertedInput)

        /// The attribute types a source value of this meaning becomes; nil for one that takes any (a conversion)
        /// or is a link.
        var attributeType: AttributeType? {
            switch self {
            case .text: .string
            case .bool: .bool
            case .int16: .int16
            case .int32: .int32
            case .int64: .int
            case .double: .double
            case .float: .float
            case .secondsSince2001: .date
            case .uuidBytes: .uuid
            case .bytes: .data
            case .link, .converted: nil
            }
        }
    }

    /// What a converted source value must be for its conversion to be called.
    package enum ConvertedInput: Sendable, Equatable {
        /// An integer, a real, or a text of ASCII without a NUL.
        case numberOrASCIIText
        /// A blob.
        case bytes
    }

    /// A conversion of a source value into the attribute's Molt value, in Swift; its error makes the copy unfit.
    package struct Conversion: Sendable {
        /// Converts the stored value (an integer, a real, a string or data; never null) of the row whose key is
        /// given.
        package var convert: @Sendable (_ key: Int64, _ stored: Value) throws -> Value
        /// The same conversion for the proof's second reading of the source, on another thread: one whose side
        /// effects (a list of what it met) must not count twice gives its own.
        package var proof: @Sendable (_ key: Int64, _ stored: Value) throws -> Value

        package init(
            _ convert: @escaping @Sendable (_ key: Int64, _ stored: Value) throws -> Value,
            proof: (@Sendable (_ key: Int64, _ stored: Value) throws -> Value)? = nil
        ) {
            self.convert = convert
            self.proof = proof ?? convert
        }
    }

    /// A to-many relationship of an entity, read from pairs.
    package struct Link: Sendable {
        /// The relationship.
        package var relationship: String
        /// A `SELECT` of the pairs in columns named `owner`, `target` and, for an ordered relationship, `position`
        /// (from 1), for the entity's owners only.
        package var pairs: String

        package init(relationship: String, pairs: String) {
            self.relationship = relationship
            self.pairs = pairs
        }
    }

    /// What the copy did.
    package enum Outcome: Sendable {
        /// Written and proved: per entity, the rows read and written, every digest agreeing.
        case copied([Line])
        /// Written, but the proof found an entity whose rows or pairs differ from the source's: nothing was kept.
        /// A defect of the copy, which the caller refuses naming the entity.
        case disagreed([Line])
        /// Why the copy could not be made exactly; nothing was kept.
        case unfit(String)
    }

    /// The proof of one entity: its rows and pairs on both sides.
    package struct Line: Sendable, Equatable {
        package var entity: String
        package var sourceCount: Int
        package var copiedCount: Int
        /// Whether the digests of the entity's rows and of each of its relationships' pairs agree.
        package var agree: Bool

        /// Whether the source and the copy hold the same objects and links.
        package var holds: Bool { agree && sourceCount == copiedCount }
    }
}

extension RowCopy {
    /// Why the copy does not fit `schema`, or nil: every entity concrete, every column an attribute of the type its
    /// meaning makes (or a to-one relationship for a link), every attribute given a column, every link a to-many
    /// relationship, every conversion declared.
    package func misfit(in schema: Schema) -> String? {
        for rows in entities {
            guard let declared = schema.entity(named: rows.entity), !declared.isAbstract,
                let entity = schema.effectiveEntity(named: rows.entity)
            else { return "'\(rows.entity)' is not a concrete entity of the schema" }
            for column in rows.columns {
                if column.meaning == .link {
                    guard entity.relationship(named: column.member)?.kind == .toOne else {
                        return "'\(rows.entity).\(column.member)' is not a to-one relationship"
                    }
                } else if let attribute = entity.attribute(named: column.member) {
                    if case .converted(let index, _) = column.meaning, !conversions.indices.contains(index) {
                        return "'\(rows.entity).\(column.member)' names conversion \(index), which the copy lacks"
                    }
                    if let type = column.meaning.attributeType, type != attribute.type {
                        return "'\(rows.entity).\(column.member)' is \(attribute.type), not \(type)"
                    }
                } else {
                    return "'\(rows.entity)' has no attribute '\(column.member)'"
                }
            }
            // An attribute no column gives would be left null (or its default) for every object: a silent loss.
            let given = Set(rows.columns.map(\.member))
            if let missing = entity.attributes.first(where: { !given.contains($0.name) }) {
                return "'\(rows.entity).\(missing.name)' has no column in the copy: every object would lose it"
            }
            for link in rows.links where entity.relationship(named: link.relationship)?.kind != .toMany {
                return "'\(rows.entity).\(link.relationship)' is not a to-many relationship"
            }
        }
        return nil
    }
}
