extension SchemaDiff {
    /// Whether the only changes record the shapes of JSON values the older schema did not record: a schema
    /// written before Molt recorded shapes, which is the same schema.
    package var onlyRecordsShapes: Bool {
        !changes.isEmpty
            && changes.allSatisfy {
                if case .valueShapeChanged(from: nil, to: _) = $0.kind { return true }
                return false
            }
    }

    /// The changes between two shapes of an attribute's JSON values, field by field. None of them is refused by
    /// the diff: those that stored values might not satisfy are checked value by value when the migration runs
    /// (``ValueShape``).
    static func shapeChanges(from old: ValueShape?, to new: ValueShape?) -> [SchemaChange.Kind] {
        guard old != new else { return [] }
        guard let old, let new, old != .opaque, new != .opaque else { return [.valueShapeChanged(from: old, to: new)] }
        var kinds: [SchemaChange.Kind] = []
        compare(old, new, at: "", into: &kinds)
        return kinds
    }

    private static func compare(
        _ old: ValueShape, _ new: ValueShape, at path: String, into kinds: inout [SchemaChange.Kind]
    ) {
        guard old != new else { return }
        switch (old, new) {
        case (.object(let before), .object(let after)):
            let oldFields = Dictionary(before.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let newNames = Set(after.map(\.name))
            for field in after {
                let fieldPath = path.isEmpty ? field.name : "\(path).\(field.name)"
                guard let previous = oldFields[field.name] else {
                    kinds.append(.valueFieldAdded(field: fieldPath, presence: field.presence))
                    continue
                }
                if previous.presence == .required && field.presence != .required {
                    kinds.append(.valueFieldMadeOptional(field: fieldPath))
                } else if previous.presence != .required && field.presence == .required {
                    kinds.append(.valueFieldMadeRequired(field: fieldPath))
                }
                compare(previous.shape, field.shape, at: fieldPath, into: &kinds)
            }
            for field in before where !newNames.contains(field.name) {
                kinds.append(.valueFieldRemoved(field: path.isEmpty ? field.name : "\(path).\(field.name)"))
            }
        case (.array(let a), .array(let b)), (.dictionary(let a), .dictionary(let b)):
            compare(a, b, at: path + "[]", into: &kinds)
        case (.cases(let a), .cases(let b)):
            kinds += b.filter { !a.contains($0) }.map { .valueCaseAdded(field: path, case: $0) }
            kinds += a.filter { !b.contains($0) }.map { .valueCaseRemoved(field: path, case: $0) }
        default:
            kinds.append(
                path.isEmpty
                    ? .valueShapeChanged(from: old, to: new) : .valueFieldTypeChanged(field: path, from: old, to: new))
        }
    }
}

extension SchemaChange {
    /// The description of a change of an attribute's JSON values, nil for any other change.
    var valueDescription: String? {
        let attribute = "attribute '\(entity).\(property ?? "")'"
        func field(_ path: String) -> String {
            path.isEmpty ? "The values of \(attribute)" : "Field '\(path)' of \(attribute)"
        }
        switch kind {
        case .valueShapeChanged(nil, let new?):
            return "The values of \(attribute) now record their shape (\(new.name))."
        case .valueShapeChanged(_?, nil):
            return "The values of \(attribute) no longer record their shape."
        case .valueShapeChanged(let old, let new):
            return
                "The values of \(attribute) have changed shape from '\(old?.name ?? "none")' to '\(new?.name ?? "none")'."
        case .valueFieldAdded(let path, let presence):
            let how = ["required": "required", "optional": "optional", "defaulted": "with a default"][
                presence.rawValue]!
            return "\(field(path)) has been added (\(how))."
        case .valueFieldRemoved(let path): return "\(field(path)) has been removed."
        case .valueFieldTypeChanged(let path, let old, let new):
            return "\(field(path)) has changed type from '\(old.name)' to '\(new.name)'."
        case .valueFieldMadeOptional(let path): return "\(field(path)) has been made optional."
        case .valueFieldMadeRequired(let path): return "\(field(path)) has been made required."
        case .valueCaseAdded(let path, let name):
            return "Case '\(name)' of \(field(path).lowercasedFirst) has been added."
        case .valueCaseRemoved(let path, let name):
            return "Case '\(name)' of \(field(path).lowercasedFirst) has been removed."
        default: return nil
        }
    }
}

extension String {
    fileprivate var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}
