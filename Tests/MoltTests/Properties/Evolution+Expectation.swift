import Foundation
import Molt

extension Evolution {
    /// What migrating the store through every version must give.
    enum Outcome: Equatable {
        /// Every value kept as the declared changes say: the store's data at the last version.
        case migrated(StoreDump)
        /// The migration to `version` cannot keep every value (an int without an exact double), so it must be
        /// refused, and the store left as it was.
        case refused(version: Int)
    }

    /// The one entity's name at version 0.
    static let entityName = "Item"

    /// Version 0: one entity with the drawn attributes, named `a0`, `a1`, …
    var initialSchema: Schema {
        let members = attributes.enumerated().map { index, drawn in
            Attribute("a\(index)", Self.types[drawn.type], isOptional: drawn.isOptional)
        }
        return Schema(version: 0, entities: [Entity(Self.entityName, attributes: members)])
    }

    /// Inserts version 0's objects.
    func fill(_ store: Objects) throws {
        let schema = initialSchema.entities[0]
        for drawn in objects {
            var values: [String: Value] = [:]
            for (attribute, raw) in zip(schema.attributes, drawn) {
                values[attribute.name] = raw.isNull && attribute.isOptional ? .null : Self.value(raw, attribute.type)
            }
            _ = try store.insert(Self.entityName, values)
        }
    }

    /// The schemas of versions 0 to N, and what migrating a store that holds `before` at version 0 through them
    /// must give.
    func expectation(from before: StoreDump) -> (schemas: [Schema], outcome: Outcome) {
        var schemas = [initialSchema]
        var expected = before
        var refusedAt: Int?
        var entity = Self.entityName
        var counter = attributes.count
        func newName() -> String {
            defer { counter += 1 }
            return "a\(counter)"
        }
        for (index, step) in steps.enumerated() {
            let version = index + 1
            var schema = schemas.last!.next(version) { _ in }
            let current = schema.entities[0].attributes
            let target = current[step.pick % current.count]
            let ints = current.filter { $0.type == .int }, optionals = current.filter(\.isOptional)
            let required = current.filter { !$0.isOptional }
            switch step.kind {
            case 0:  // rename an attribute
                let name = newName()
                schema.edit(entity) {
                    $0.editAttribute(target.name) {
                        $0.name = name; $0.originalName = target.name
                    }
                }
                expected = expected.renamingAttribute(entity, target.name, to: name)
            case 1 where !ints.isEmpty:  // widen an int to double: exact within 2^53, refused beyond
                let widened = ints[step.pick % ints.count].name
                schema.edit(entity) {
                    $0.editAttribute(widened) {
                        $0.type = .double
                        $0.defaultValue = $0.defaultValue  // coerces an int default to a double
                    }
                }
                for object in (expected.entities[entity] ?? [:]).values {
                    if case .int(let v) = object.values[widened], Double(exactly: v) == nil {
                        refusedAt = refusedAt ?? version
                    }
                }
                expected = expected.converting(entity, widened) { value in
                    if case .int(let v) = value, let exact = Double(exactly: v) { return .double(exact) }
                    return value
                }
            case 2 where !optionals.isEmpty:  // make an optional attribute required, with a default for its nulls
                let made = optionals[step.pick % optionals.count]
                let fallback = Self.defaultValue(step.value, made.type)
                schema.edit(entity) {
                    $0.editAttribute(made.name) {
                        $0.isOptional = false; $0.defaultValue = fallback
                    }
                }
                expected = expected.converting(entity, made.name) { $0.isNull ? fallback : $0 }
            case 4 where current.count > 1:  // remove an attribute, declared
                schema.edit(entity) { $0.attributes.removeAll { $0.name == target.name } }
                schema.deletions = [.property(target.name, of: entity)]
                expected = expected.removingAttribute(entity, target.name)
            case 5 where !required.isEmpty:  // make a required attribute optional
                schema.edit(entity) {
                    $0.editAttribute(required[step.pick % required.count].name) { $0.isOptional = true }
                }
            case 6:  // rename the entity
                let name = "Item\(version)"
                schema.edit(entity) {
                    $0.name = name; $0.originalName = entity
                }
                expected = expected.renamingEntity(entity, to: name)
                entity = name
            default:  // add an attribute: optional (null), or required with a default
                let name = newName(), type = Self.types[step.type]
                let fallback = step.isOptional ? Value.null : Self.defaultValue(step.value, type)
                schema.edit(entity) {
                    $0.attributes.append(Attribute(name, type, isOptional: step.isOptional, default: fallback))
                }
                expected = expected.setting(entity, name, to: fallback)
            }
            schemas.append(schema)
        }
        return (schemas, refusedAt.map { .refused(version: $0) } ?? .migrated(expected))
    }

    /// A drawn value as a value of `type`.
    static func value(_ raw: RawValue, _ type: AttributeType) -> Value {
        switch type {
        case .int: return .int(raw.int)
        case .double: return .double(raw.double)
        case .bool: return .bool(raw.bool)
        default: return .string(raw.string)
        }
    }

    /// A drawn default of `type`: integers stay small, so that a later widening converts the default exactly.
    static func defaultValue(_ raw: RawValue, _ type: AttributeType) -> Value {
        type == .int ? .int(raw.int % 1000) : value(raw, type)
    }
}
