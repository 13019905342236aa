extension CoreDataModel {
    /// The first difference between what this model and `other` store, or nil when they store alike: their
    /// entities and parents, each attribute's type and optionality, each relationship's destination, cardinality,
    /// order, inverse and delete rule. Transient properties, defaults, indexes and constraints are not compared.
    ///
    /// Two model versions with the same tables and columns can still differ here (an `Integer 16` and an
    /// `Integer 64`, a `Date` and a `Double`): adoption compares the version it matched with the model the store
    /// itself was saved with (``CoreDataModelCache``), since a `Date` read as a `Double` is 31 years off.
    package func storedDifference(from other: CoreDataModel) -> String? {
        let mine = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) })
        let theirs = Dictionary(uniqueKeysWithValues: other.entities.map { ($0.name, $0) })
        for name in Set(mine.keys).union(theirs.keys).sorted() {
            guard let entity = mine[name] else { return "entity '\(name)' is in \(other.name), not in \(self.name)" }
            guard let counterpart = theirs[name] else {
                return "entity '\(name)' is in \(self.name), not in \(other.name)"
            }
            if let difference = entity.storedDifference(from: counterpart, here: self.name, there: other.name) {
                return difference
            }
        }
        return nil
    }
}

extension CoreDataEntity {
    fileprivate func storedDifference(from other: CoreDataEntity, here: String, there otherName: String) -> String? {
        if parent != other.parent {
            return
                "entity '\(name)' inherits from \(parent ?? "nothing") in \(here), from \(other.parent ?? "nothing") in \(otherName)"
        }
        if isAbstract != other.isAbstract {
            return
                "entity '\(name)' is \(isAbstract ? "" : "not ")abstract in \(here), \(other.isAbstract ? "" : "not ")abstract in \(otherName)"
        }
        let properties = storedProperties, others = other.storedProperties
        for property in Set(properties.keys).union(others.keys).sorted() where properties[property] != others[property]
        {
            return
                "'\(name).\(property)' is \(properties[property] ?? "absent") in \(here), \(others[property] ?? "absent") in \(otherName)"
        }
        return nil
    }

    /// Each stored property's description, by name.
    private var storedProperties: [String: String] {
        var described: [String: String] = [:]
        for attribute in attributes where !attribute.isTransient {
            described[attribute.name] = "\(attribute.type)\(attribute.isOptional ? " (optional)" : "")"
        }
        for relationship in relationships where !relationship.isTransient {
            let order = relationship.isOrdered ? "ordered " : ""
            described[relationship.name] =
                "a \(relationship.isToMany ? "\(order)to-many" : "to-one") link to \(relationship.destination) (inverse \(relationship.inverse ?? "none"), \(relationship.deleteRule.rawValue))"
        }
        return described
    }
}
