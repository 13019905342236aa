import Foundation

extension SchemaDiff {
    /// How a step runs, as far as what its success depends on: inferred by Molt, or a stage (custom code, a
    /// mapping, a Realm-form block) that sees the old data first.
    public enum StepForm: Hashable, Sendable {
        /// Molt infers the step (no stage, or a lightweight one).
        case inferred
        /// A custom stage or a mapping runs the step.
        case stage
    }

    /// A condition under which a step that migrates an empty store is refused on a store that holds some data:
    /// what the step changes, the stored data that makes it fail, and the fix.
    ///
    /// A development store is usually empty or holds tidy data; a user's store holds what years of use left in
    /// it. Every rule of the engine that refuses a step only for some stored data is listed here, once, by
    /// ``SchemaDiff/dataDependencies(_:)``; `molt check` warns of each, and MoltTesting's `MigrationTester`
    /// generates the data and runs the plan over it.
    ///
    /// ```swift
    /// for dependency in SchemaDiff(from: v3, to: v4).dataDependencies(.inferred) {
    ///     print(dependency)
    ///     // step 3 → 4 depends on the data: 'Person.email' becomes unique: a store at version 3 where two
    ///     // 'Person' objects hold the same 'email' is refused. Make the values unique in a custom stage from version 3 to 4, or drop the
    ///     // constraint.
    /// }
    /// ```
    public struct DataDependency: Hashable, Sendable, CustomStringConvertible {
        /// Which rule of the engine it is.
        public enum Kind: Hashable, Sendable {
            /// An inferred removal that must be declared when it deletes data: an entity, or an attribute that
            /// looks renamed (``SchemaDiff/likelyRenames``) or moved (``SchemaDiff/likelyMoves``). Refused when
            /// it holds an object or a value.
            case undeclaredRemoval
            /// A uniqueness constraint (a unique index, a primary key) over values existing objects may share.
            case uniqueness
            /// A widening from int to double: refused for an integer with no exact double (beyond 2^53).
            case inexactDouble
            /// A required attribute with no default that the stage must set: refused for an object it leaves
            /// without a value (a null of the optional attribute it was, or any object when it is new).
            case requiredValue
            /// A new to-one side whose inverse already holds links: refused when the inverse links one object
            /// from several, since a to-one holds one.
            case overfullInverse
            /// Two relationships that existed apart become each other's inverse: refused when one holds a link
            /// the other does not.
            case inverseMismatch
            /// A to-one relationship that is required in the newer version and was not (made required, or added
            /// as required), or a to-many relationship whose minimum count is raised (or that is added with one)
            /// into a version that refuses short owners (``Schema/refusingShortOwners()``; by default the step
            /// keeps them): refused for an object the step leaves without enough destinations.
            case requiredLink
            /// An attribute whose JSON values take a shape that older values may not have (a required field
            /// added, a type changed, a case removed): refused for a stored value that does not fit.
            case valueShape
        }

        /// The stored data that makes the step fail, by the names of the step's older version: what a test
        /// store must hold to exercise the step.
        public enum Witness: Hashable, Sendable {
            /// One object of `entity` whose `attribute` holds `value` (`.null`: no value); with no attribute,
            /// any object of the entity.
            case object(entity: String, attribute: String?, value: Value)
            /// Two objects of `entity` that hold the same values in `attributes` (not null); with no attributes,
            /// any two objects.
            case sharedValues(entity: String, attributes: [String])
            /// One object of `entity` that two objects of `linkedFrom` link to through their `relationship`.
            case linkedFromTwo(entity: String, linkedFrom: String, relationship: String)
            /// One object of `entity` that links through `relationship` to an object of `destination` that does
            /// not link back.
            case oneSidedLink(entity: String, relationship: String, destination: String)
        }

        /// Which rule it is.
        public var kind: Kind
        /// The step's older version.
        public var fromVersion: Int
        /// The step's newer version.
        public var toVersion: Int
        /// What it is about, as MoltTesting's `MigrationTester` assumptions and reports name it: `Person.email`,
        /// `Person(first, last)`, `Draft` (newer names, older ones for a removal).
        public var subject: String
        /// The change, as the newer version states it: `'Person.email' becomes unique`.
        public var change: String
        /// The data that makes the step fail, as stored at the older version: `two 'Person' objects hold the
        /// same 'email'`.
        public var failingData: String
        /// What to do so that every store migrates.
        public var fix: String
        /// The data, as values a test can store.
        public var witness: Witness

        /// `step 3 → 4: 'Person.email' becomes unique: a store at version 3 where two 'Person' objects hold the
        /// same 'email' is refused. Make the values unique …`
        public var description: String {
            "step \(fromVersion) → \(toVersion) depends on the data: \(change): a store at version \(fromVersion) where \(failingData) is refused. \(fix)"
        }
    }

    /// An integer with no exact double: 2^53 + 1, the smallest positive one.
    public static let firstInexactInteger: Int64 = 9_007_199_254_740_993

    /// Every condition under which the step, run in `form`, is refused for some stored data while it migrates
    /// an empty store: the one description of those rules, which the engine enforces where it runs the step.
    ///
    /// Changes Molt refuses whatever the data (a required attribute added without default in an inferred step,
    /// a narrowing) are ``refusals``, not listed here; nor are changes that never fail: an optional attribute
    /// made required *with* a default takes the default where it held null, in either form.
    ///
    /// ```swift
    /// let diff = SchemaDiff(from: v1, to: v2)
    /// for dependency in diff.dataDependencies(.stage) { print(dependency.change, "—", dependency.failingData) }
    /// ```
    ///
    /// - Parameter form: Whether the step is inferred or runs a stage: an inferred step refuses undeclared
    ///   removals that hold data, a stage must set the required attributes it leaves empty.
    /// - Returns: The conditions, in the order of the changes.
    public func dataDependencies(_ form: StepForm) -> [DataDependency] {
        var result: [DataDependency] = []
        if form == .inferred { result += removalDependencies() }
        for change in changes {
            switch change.kind {
            case .indexAdded(let columns, unique: true):
                if let dependency = uniquenessDependency(entity: change.entity, columns: columns, form: form) {
                    result.append(dependency)
                }
            case .attributeTypeChanged(from: .int, to: .double):
                if let dependency = inexactDoubleDependency(entity: change.entity, attribute: change.property ?? "") {
                    result.append(dependency)
                }
            default:
                continue
            }
        }
        if form == .stage { result += requiredValueDependencies() }
        result += inverseDependencies()
        result += requiredLinkDependencies(form)
        result += valueShapeDependencies(form)
        return result
    }

    func step(
        _ kind: DataDependency.Kind, _ subject: String, _ change: String, _ data: String, _ fix: String,
        _ witness: DataDependency.Witness
    ) -> DataDependency {
        DataDependency(
            kind: kind, fromVersion: source.version, toVersion: destination.version, subject: subject, change: change,
            failingData: data, fix: fix, witness: witness)
    }

    func article(_ entity: String) -> String {
        "aeioAEIO".contains(entity.first ?? "x") ? "an" : "a"
    }

    // MARK: - Removals (inferred steps, as `DataLoss` refuses them)

    private func removalDependencies() -> [DataDependency] {
        let (from, to) = (source.version, destination.version)
        var result: [DataDependency] = []
        for loss in losses where loss.mustBeDeclared {
            guard let property = loss.property else {
                var fix =
                    "If its objects are meant to go, declare it: `Schema(version: \(to), deleting: [.entity(\"\(loss.entity)\")])`."
                for target in loss.renamedTo {
                    fix +=
                        " If it was renamed to '\(target)', declare `originalName: \"\(loss.entity)\"` on entity '\(target)'."
                }
                fix +=
                    " If its objects become other objects, read them in a custom stage from version \(from) to \(to)."
                result.append(
                    step(
                        .undeclaredRemoval, loss.entity,
                        "entity '\(loss.entity)' is removed without a declared deletion",
                        "'\(loss.entity)' holds an object", fix,
                        .object(entity: loss.entity, attribute: nil, value: .null)))
                continue
            }
            guard let attribute = source.entity(named: loss.entity)?.attribute(named: property) else { continue }
            let label = "'\(loss.entity).\(property)'"
            let what =
                loss.isLikelyMove && !loss.isLikelyRename
                ? "is removed while \(loss.movedTo.map { "'\($0).\(property)'" }.joined(separator: " and ")) of the same name \(loss.movedTo.count == 1 ? "is" : "are") added (a likely move)"
                : "is removed while \(loss.renamedTo.map { "'\($0)'" }.joined(separator: " and ")) of the same type \(loss.renamedTo.count == 1 ? "is" : "are") added (a likely rename)"
            var fix = ""
            for target in loss.renamedTo {
                fix +=
                    "If it was renamed to '\(target)', declare `originalName: \"\(property)\"` on attribute '\(target)'. "
            }
            for destination in loss.movedTo {
                fix +=
                    "If it moved to '\(destination).\(property)', move its values in a custom stage or a mapping from version \(from) to \(to). "
            }
            fix +=
                "If the values are meant to go, declare it: `Schema(version: \(to), deleting: [.property(\"\(property)\", of: \"\(loss.entity)\")])`."
            result.append(
                step(
                    .undeclaredRemoval, "\(loss.entity).\(property)", "\(label) \(what)",
                    "\(article(loss.entity)) '\(loss.entity)' object holds a value in '\(property)'", fix,
                    .object(entity: loss.entity, attribute: property, value: Self.sample(attribute.type, 0))))
        }
        return result
    }

    // MARK: - Uniqueness (every path, as `syncIndexes` checks it)

    private func uniquenessDependency(entity: String, columns: [String], form: StepForm) -> DataDependency? {
        guard let oldName = originalName(ofEntity: entity), let old = source.entity(named: oldName),
            let new = destination.entity(named: entity)
        else { return nil }
        var oldColumns: [String] = []
        for column in columns {
            // An index may hold a to-one relationship: its column holds the linked object, as an attribute's
            // holds its value.
            if let origin = originalName(ofProperty: column, inEntity: entity),
                old.attribute(named: origin) != nil || old.relationship(named: origin)?.kind == .toOne
            {
                oldColumns.append(origin)
            } else if form == .inferred && (new.attribute(named: column)?.defaultValue ?? .null).isNull {
                return nil  // a new column without default holds null in every existing object: never a duplicate
            }
        }
        // Already unique before: a constraint of the older version over a subset of the columns.
        if old.storedIndexes.contains(where: { $0.isUnique && Set($0.attributes).isSubset(of: Set(oldColumns)) }) {
            return nil
        }
        let (from, to) = (source.version, destination.version)
        let subject = columns.count == 1 ? "\(entity).\(columns[0])" : "\(entity)(\(columns.joined(separator: ", ")))"
        let change =
            columns.count == 1 && new.primaryKey == columns[0]
            ? "'\(subject)' becomes the primary key, unique"
            : columns.count == 1
                ? "'\(subject)' becomes unique" : "'\(entity)'(\(columns.joined(separator: ", "))) becomes unique"
        let data: String
        switch oldColumns.count {
        case 0: data = "two '\(oldName)' objects exist (the new values would be equal)"
        case 1: data = "two '\(oldName)' objects hold the same '\(oldColumns[0])'"
        default:
            data =
                "two '\(oldName)' objects hold the same values of \(oldColumns.map { "'\($0)'" }.joined(separator: ", "))"
        }
        let fix =
            form == .inferred
            ? "Make the values unique in a custom stage from version \(from) to \(to) (`enumerateObjects(ofType: \"\(entity)\")`), or drop the constraint."
            : "Make the stage from version \(from) to \(to) leave the values unique (merge or edit the duplicates), or drop the constraint."
        return step(.uniqueness, subject, change, data, fix, .sharedValues(entity: oldName, attributes: oldColumns))
    }

    // MARK: - Widening int → double (every path, as `ExactDoubles` checks it)

    private func inexactDoubleDependency(entity: String, attribute: String) -> DataDependency? {
        guard let oldName = originalName(ofEntity: entity),
            let oldAttribute = originalName(ofProperty: attribute, inEntity: entity),
            source.entity(named: oldName)?.attribute(named: oldAttribute) != nil
        else { return nil }
        let (from, to) = (source.version, destination.version)
        return step(
            .inexactDouble, "\(entity).\(attribute)", "'\(entity).\(attribute)' widens from int to double",
            "\(article(oldName)) '\(oldName)' object holds in '\(oldAttribute)' an integer beyond 2^53, which has no exact double (such as \(Self.firstInexactInteger))",
            "Keep '\(entity).\(attribute)' an int, or add a new double attribute and fill it in a custom stage from version \(from) to \(to), rounding as you choose.",
            .object(entity: oldName, attribute: oldAttribute, value: .int(Self.firstInexactInteger)))
    }

    // MARK: - Required values a stage must set (as `Migration.finish` checks them)

    private func requiredValueDependencies() -> [DataDependency] {
        let (from, to) = (source.version, destination.version)
        var result: [DataDependency] = []
        for entity in destination.entities {
            guard let oldName = originalName(ofEntity: entity.name), let old = source.entity(named: oldName) else {
                continue
            }
            for attribute in entity.attributes where !attribute.isOptional && attribute.defaultValue == nil {
                let label = "'\(entity.name).\(attribute.name)'"
                let change: String
                let data: String
                let witness: DataDependency.Witness
                if let origin = originalName(ofProperty: attribute.name, inEntity: entity.name),
                    let oldAttribute = old.attribute(named: origin)
                {
                    if oldAttribute.type.widens(to: attribute.type) {
                        guard oldAttribute.isOptional else { continue }  // every object has a value, carried over
                        let was = origin == attribute.name ? "was optional" : "was the optional '\(oldName).\(origin)'"
                        change = "\(label) becomes required with no default (it \(was))"
                        data = "\(article(oldName)) '\(oldName)' object has no value in '\(origin)'"
                        witness = .object(entity: oldName, attribute: origin, value: .null)
                    } else {
                        change =
                            "\(label) changes type from \(oldAttribute.type.rawValue) to \(attribute.type.rawValue), required with no default"
                        data = "\(article(oldName)) '\(oldName)' object exists"
                        witness = .object(entity: oldName, attribute: nil, value: .null)
                    }
                } else {
                    change = "\(label) is added as required with no default"
                    data = "\(article(oldName)) '\(oldName)' object exists"
                    witness = .object(entity: oldName, attribute: nil, value: .null)
                }
                let fix =
                    "Set it for every object in the stage from version \(from) to \(to) (`new[\"\(attribute.name)\"] = …` in `enumerateObjects(ofType: \"\(entity.name)\")`), give it a default, or make it optional."
                result.append(step(.requiredValue, "\(entity.name).\(attribute.name)", change, data, fix, witness))
            }
        }
        return result
    }

    // MARK: - Inverses (every path, as `InverseLink` fills and validation compares them)

    /// Whether the side `entity.relationship` (newer names) starts the step empty: no relationship of the older
    /// version feeds it (a to-one fed by a to-one to the same destination, a to-many by a to-many or a to-one).
    func startsEmpty(_ entity: String, _ relationship: String) -> Bool {
        guard let oldEntityName = originalName(ofEntity: entity), let oldEntity = source.entity(named: oldEntityName),
            let new = destination.entity(named: entity)?.relationship(named: relationship),
            let origin = originalName(ofProperty: relationship, inEntity: entity),
            let old = oldEntity.relationship(named: origin),
            originalName(ofEntity: new.destination) == old.destination
        else { return true }
        return new.kind == .toOne && old.kind == .toMany
    }

    /// The pairs of the newer schema whose two sides both carry links of the older version, where they were not
    /// each other's inverse: two relationships declared inverses, whose stored links may disagree.
    func newlyPairedInverses() -> [InverseLink] {
        InverseLink.pairs(in: destination).filter { pair in
            guard !startsEmpty(pair.entity, pair.relationship.name), !startsEmpty(pair.destination, pair.inverse.name),
                let oldEntity = originalName(ofEntity: pair.entity),
                let oldName = originalName(ofProperty: pair.relationship.name, inEntity: pair.entity),
                let old = source.entity(named: oldEntity)?.relationship(named: oldName)
            else { return false }
            return old.inverse != originalName(ofProperty: pair.inverse.name, inEntity: pair.destination)
        }
    }

    private func inverseDependencies() -> [DataDependency] {
        let (from, to) = (source.version, destination.version)
        var result: [DataDependency] = []
        let sides = InverseLink.sidesToFill(in: destination) { startsEmpty($0, $1) }
        for side in sides where side.relationship.kind == .toOne && originalName(ofEntity: side.entity) != nil {
            guard let oldEntity = originalName(ofEntity: side.entity),
                let oldDestination = originalName(ofEntity: side.destination),
                let oldInverse = originalName(ofProperty: side.inverse.name, inEntity: side.destination)
            else { continue }
            result.append(
                step(
                    .overfullInverse, "\(side.entity).\(side.relationship.name)",
                    "\(side.label) is added as the to-one inverse of \(side.inverseLabel)",
                    "one '\(oldEntity)' object is linked from two '\(oldDestination)' objects through '\(oldDestination).\(oldInverse)'",
                    "Make \(side.label) to-many, or keep one link per object in a custom stage from version \(from) to \(to).",
                    .linkedFromTwo(entity: oldEntity, linkedFrom: oldDestination, relationship: oldInverse)))
        }
        for pair in newlyPairedInverses() {
            guard let oldEntity = originalName(ofEntity: pair.entity),
                let oldDestination = originalName(ofEntity: pair.destination),
                let oldName = originalName(ofProperty: pair.relationship.name, inEntity: pair.entity),
                let oldInverseName = originalName(ofProperty: pair.inverse.name, inEntity: pair.destination)
            else { continue }
            result.append(
                step(
                    .inverseMismatch, "\(pair.entity).\(pair.relationship.name)",
                    "\(pair.label) and \(pair.inverseLabel) become each other's inverse",
                    "\(article(oldEntity)) '\(oldEntity)' object links through '\(oldName)' to \(article(oldDestination)) '\(oldDestination)' object whose '\(oldInverseName)' does not link back",
                    "Make both sides agree in a custom stage from version \(from) to \(to) (link through `migration.new`, which keeps both sides in step), or keep them separate relationships.",
                    .oneSidedLink(entity: oldEntity, relationship: oldName, destination: oldDestination)))
        }
        return result
    }

    // MARK: - Sample values

    /// A value of `type`, different for each `index`: what a generated test object holds where any value fits.
    ///
    /// ```swift
    /// SchemaDiff.sample(.string, 1)   // "sample 1"
    /// ```
    public static func sample(_ type: AttributeType, _ index: Int) -> Value {
        switch type {
        case .string: return .string("sample \(index)")
        case .int, .int32: return .int(Int64(index) + 1)
        case .int16: return .int(Int64(index % 32_767) + 1)
        case .double, .float: return .double(Double(index) + 0.5)
        case .decimal: return .decimal(Decimal(index) + Decimal(string: "0.25")!)
        case .bool: return .bool(index % 2 == 1)
        case .date: return .date(Date(timeIntervalSince1970: 86_400 * Double(index + 1)))
        case .data: return .data(Data([UInt8(truncatingIfNeeded: index)]))
        case .uuid:
            let byte = UInt8(truncatingIfNeeded: index)
            return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, byte)))
        }
    }
}
