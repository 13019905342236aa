import Foundation

extension SchemaDiff {
    /// The attributes whose JSON values take a shape that values of the older shape might not have (a required
    /// field added, a type changed, a case removed): each is refused for a stored value that does not fit, as
    /// ``ValueShapeCheck`` checks before every migration commits. The witness is a value of the older shape that
    /// the newer one does not read.
    func valueShapeDependencies(_ form: StepForm) -> [DataDependency] {
        let (from, to) = (source.version, destination.version)
        var result: [DataDependency] = []
        for entity in destination.entities {
            guard let oldEntity = originalName(ofEntity: entity.name) else { continue }
            for attribute in entity.attributes {
                guard let shape = attribute.shape,
                    let oldName = originalName(ofProperty: attribute.name, inEntity: entity.name),
                    let old = source.entity(named: oldEntity)?.attribute(named: oldName)?.shape,
                    old != .opaque, !shape.acceptsEveryValue(of: old),
                    let witness = old.misfit(for: shape)
                else { continue }
                let label = "'\(entity.name).\(attribute.name)'"
                let fix =
                    form == .inferred
                    ? "Rewrite the values in a custom stage from version \(from) to \(to) (set '\(attribute.name)' through `migration.new`), or make the new fields optional in the Swift type (an Optional, or `decodeIfPresent` with a default)."
                    : "Make the stage from version \(from) to \(to) rewrite every value of \(label) to the new shape, or make the new fields optional in the Swift type."
                result.append(
                    step(
                        .valueShape, "\(entity.name).\(attribute.name)",
                        "the values of \(label) take the shape \(shape.name), which values of the shape \(old.name) may not have",
                        "\(article(oldEntity)) '\(oldEntity)' object holds \(witness) in '\(oldName)'", fix,
                        .object(entity: oldEntity, attribute: oldName, value: .string(witness))))
            }
        }
        return result
    }
}

extension ValueShape {
    /// JSON text of this shape that `new` does not read, or nil when the walk finds none: a sample value whose
    /// cases are those `new` removed where it can.
    func misfit(for new: ValueShape) -> String? {
        guard let value = misfitSample(for: new),
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        return new.mismatch(inJSON: text) == nil ? nil : text
    }

    private func misfitSample(for new: ValueShape?) -> Any? {
        switch (self, new) {
        case (.cases(let cases), .cases(let kept)?): return cases.first { !kept.contains($0) } ?? cases.first
        case (.array(let element), .array(let newElement)?):
            return element.misfitSample(for: newElement).map { [$0] } ?? []
        case (.object(let fields), .object(let newFields)?):
            var object: [String: Any] = [:]
            for field in fields {
                let newField = newFields.first { $0.name == field.name }
                guard let value = field.shape.misfitSample(for: newField?.shape) else { return nil }
                object[field.name] = value
            }
            return object
        default: return sample()
        }
    }
}
