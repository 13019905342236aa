import Foundation
import Molt

extension CoreDataModel {
    /// The Molt type of a Core Data attribute, which holds exactly its values.
    ///
    /// `String`, `Boolean`, `Date`, `Double`, `Float` (`float`), `Decimal` (`decimal`), `Integer 16`/`32`/`64`
    /// (`int16`, `int32`, `int`), `UUID`; `Binary` and `Transformable` as `data` (a transformable value is
    /// stored as its archived bytes, and Molt keeps those bytes); `URI` as `string` (Core Data stores a URI as
    /// its absolute text). None is approximated.
    package static func attributeType(
        of attribute: CoreDataAttribute, entity: String, version: String
    ) throws -> AttributeType {
        switch attribute.type {
        case "String": return .string
        case "Boolean": return .bool
        case "Date": return .date
        case "Double": return .double
        case "Float": return .float
        case "Decimal": return .decimal
        case "Integer 16": return .int16
        case "Integer 32": return .int32
        case "Integer 64": return .int
        case "UUID": return .uuid
        case "Binary", "Transformable": return .data
        case "URI": return .string
        default:
            throw MoltError(
                .invalidSchema,
                "Core Data model '\(version)': attribute '\(entity).\(attribute.name)' has type '\(attribute.type)', which molt convert-model cannot write (it knows String, Boolean, Date, Double, Float, Decimal, Integer 16/32/64, Binary, Transformable, URI, UUID). Change the attribute's type, or make it transient if it is not stored."
            )
        }
    }

    /// The attribute's default as a Molt value, and the approximation when the model's text is not of its type.
    package static func defaultValue(
        of attribute: CoreDataAttribute, as type: AttributeType, entity: String, version: String
    ) throws -> (Value?, String?) {
        if type == .date {
            guard let interval = attribute.defaultDateInterval else {
                if let text = attribute.defaultText { throw unreadable(text, attribute, entity, version) }
                return (nil, nil)
            }
            guard let seconds = Double(interval) else { throw unreadable(interval, attribute, entity, version) }
            return (.date(Date(timeIntervalSinceReferenceDate: seconds)), nil)
        }
        guard let text = attribute.defaultText else { return (nil, nil) }
        switch type {
        case .string:
            return (.string(text), nil)
        case .bool:
            switch text {
            case "YES", "1", "true": return (.bool(true), nil)
            case "NO", "0", "false": return (.bool(false), nil)
            default: throw unreadable(text, attribute, entity, version)
            }
        case .int, .int16, .int32:
            if let number = Int64(text) ?? Double(text).flatMap({ Int64(exactly: $0) }) {
                guard ValueConversion.convert(.int(number), to: type) != nil else {  // within int16 / int32
                    throw unreadable(text, attribute, entity, version)
                }
                return (.int(number), nil)
            }
            if text == "YES" || text == "NO" {
                let number: Int64 = text == "YES" ? 1 : 0
                return (
                    .int(number),
                    "the default '\(text)' is not a number; it is written as \(number), as Core Data's model compiler reads it"
                )
            }
            throw unreadable(text, attribute, entity, version)
        case .double:
            guard let number = Double(text), number.isFinite else { throw unreadable(text, attribute, entity, version) }
            return (.double(number), nil)
        case .float:
            // The model compiler reads the text as a Float: the default is that float, exactly.
            guard let number = Float(text), number.isFinite else { throw unreadable(text, attribute, entity, version) }
            return (.double(Double(number)), nil)
        case .decimal:
            guard let number = DecimalText.decimal(fromText: text) else {
                throw unreadable(text, attribute, entity, version)
            }
            return (.decimal(number), nil)
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw unreadable(text, attribute, entity, version) }
            return (.uuid(uuid), nil)
        case .data, .date:
            throw unreadable(text, attribute, entity, version)
        }
    }

    private static func unreadable(
        _ text: String, _ attribute: CoreDataAttribute, _ entity: String, _ version: String
    ) -> MoltError {
        MoltError(
            .invalidSchema,
            "Core Data model '\(version)': attribute '\(entity).\(attribute.name)' (\(attribute.type)) has the default '\(text)', which is not a value of its type. Correct the default in the model."
        )
    }

    /// The entity's indexes: uniqueness constraints as unique indexes, attributes marked indexed and compound and
    /// fetch indexes as plain ones, each once (a unique one wins). They may hold attributes and to-one
    /// relationships, as Molt's do; one over a to-many relationship (or a property that is not stored) is left out
    /// and reported through `approximate`.
    package static func indexes(
        of entity: CoreDataEntity, attributes: [Attribute], relationships: [Relationship],
        approximate: (String?, String) -> Void
    ) -> [Index] {
        let stored = Set(attributes.map(\.name) + relationships.filter { $0.kind == .toOne }.map(\.name))
        var result: [Index] = []
        func add(_ names: [String], unique: Bool) {
            guard !names.isEmpty else { return }
            let others = names.filter { !stored.contains($0) }
            if !others.isEmpty {
                let toMany = others.filter { name in entity.relationships.contains { $0.name == name } }
                let what = unique ? "uniqueness constraint" : "index"
                approximate(
                    others.first,
                    "the \(what) on (\(names.joined(separator: ", "))) includes \(toMany.isEmpty ? "'\(others.joined(separator: "', '"))', which is not a stored attribute" : "the to-many relationship '\(toMany.joined(separator: "', '"))'"): left out, as Molt indexes attributes and to-one relationships only"
                )
                return
            }
            if let existing = result.firstIndex(where: { $0.attributes == names }) {
                if unique { result[existing].isUnique = true }
                return
            }
            result.append(Index(names, unique: unique))
        }
        for constraint in entity.uniquenessConstraints { add(constraint, unique: true) }
        for attribute in entity.attributes where attribute.isIndexed && !attribute.isTransient {
            add([attribute.name], unique: false)
        }
        for index in entity.indexes { add(index, unique: false) }
        return result
    }
}
