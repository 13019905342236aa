import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A property of a `@Model` struct that is stored in the store, as the macro reads it from the declaration.
struct StoredProperty {
    enum Kind: Equatable {
        /// An attribute of this Molt attribute type (`string`, `int`…), or, for nil, of a type of the app's that
        /// conforms to `PersistentValue` (a `RawRepresentable` enum, a JSON-coded value) and names its own.
        case attribute(type: String?)
        case toOne(destination: String)
        case toMany(destination: String)
    }

    let name: String
    /// The declared type, as written.
    let type: TypeSyntax
    /// The type without its optional wrapper.
    let baseType: TypeSyntax
    let kind: Kind
    let isOptional: Bool
    /// The default stored in the schema: a literal initial value, or nil.
    let defaultValue: ExprSyntax?
    let originalName: String?
    let isUnique: Bool
    let isPrimaryKey: Bool
    let inverse: String?
    let deleteRule: String?
    let isOrdered: Bool
    /// Whether `@Relationship(isOptional: false)` makes the relationship required.
    let isRequired: Bool
    /// The minimum count `@Relationship(minimumCount: n)` gives a to-many relationship, as written.
    let minimumCount: ExprSyntax?
    /// Whether `@Attribute(.indexed)` or `@Relationship(indexed: true)` indexes the property (not uniquely).
    let isIndexed: Bool

    /// A property with the options its `@Attribute(…)` and `@Relationship(…)` marks give.
    init(
        name: String, type: TypeSyntax, baseType: TypeSyntax, kind: Kind, isOptional: Bool, defaultValue: ExprSyntax?,
        attributeMark: AttributeSyntax?, relationshipMark: AttributeSyntax?
    ) {
        let attributeArguments = attributeMark?.arguments?.as(LabeledExprListSyntax.self).map(Array.init) ?? []
        let relationshipArguments = relationshipMark?.arguments?.as(LabeledExprListSyntax.self).map(Array.init) ?? []
        let options = attributeArguments.filter { $0.label == nil }.map { $0.expression.trimmedDescription }
        func labeled(_ label: String, in arguments: [LabeledExprSyntax]) -> ExprSyntax? {
            arguments.first { $0.label?.text == label }?.expression
        }
        func string(_ expression: ExprSyntax?) -> String? {
            guard let literal = expression?.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
                case .stringSegment(let segment)? = literal.segments.first
            else { return nil }
            return segment.content.text
        }
        self.name = name
        self.type = type
        self.baseType = baseType
        self.kind = kind
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        originalName = string(labeled("originalName", in: attributeArguments + relationshipArguments))
        isUnique = options.contains { $0.hasSuffix("unique") }
        isPrimaryKey = options.contains { $0.hasSuffix("primaryKey") }
        inverse = string(labeled("inverse", in: relationshipArguments))
        deleteRule = labeled("deleteRule", in: relationshipArguments).map {
            String($0.trimmedDescription.split(separator: ".").last ?? "nullify")
        }
        isOrdered = labeled("ordered", in: relationshipArguments)?.trimmedDescription == "true"
        isRequired = labeled("isOptional", in: relationshipArguments)?.trimmedDescription == "false"
        minimumCount = labeled("minimumCount", in: relationshipArguments)
        isIndexed =
            options.contains { $0.hasSuffix("indexed") }
            || labeled("indexed", in: relationshipArguments)?.trimmedDescription == "true"
    }
}

/// Reads the stored properties of a struct, diagnosing what Molt cannot store.
struct PropertyReader {
    static let attributeTypes: [String: String] = [
        "String": "string", "Int": "int", "Int64": "int", "Double": "double", "Bool": "bool", "Date": "date",
        "Data": "data", "UUID": "uuid", "Int16": "int16", "Int32": "int32", "Float": "float", "Decimal": "decimal",
    ]

    /// Where to report misuse; nil to read silently.
    let context: (any MacroExpansionContext)?
    private(set) var properties: [StoredProperty] = []
    private(set) var failed = false

    init(declaration: some DeclGroupSyntax, context: (any MacroExpansionContext)?) {
        self.context = context
        var primaryKey: String?
        for member in declaration.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }) { continue }
            let bindings = Array(variable.bindings)
            for (index, binding) in bindings.enumerated() {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                if name == "persistentID" { continue }
                if let property = read(
                    binding, name: name, in: variable,
                    sharedType: bindings[index...].lazy.compactMap(\.typeAnnotation).first?.type)
                {
                    if property.isPrimaryKey {
                        if let primaryKey {
                            diagnose(.duplicatePrimaryKey(property: name, first: primaryKey), at: Syntax(variable))
                            continue
                        }
                        primaryKey = name
                    }
                    properties.append(property)
                }
            }
        }
    }

    private mutating func diagnose(_ message: MoltDiagnostic, at node: Syntax, fixIts: [FixIt] = []) {
        context?.diagnose(Diagnostic(node: node, message: message, fixIts: fixIts))
        failed = true
    }

    private func attribute(_ name: String, in variable: VariableDeclSyntax) -> AttributeSyntax? {
        for element in variable.attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            let typeName = attribute.attributeName.trimmedDescription
            if typeName == name || typeName == "MoltMacros.\(name)" { return attribute }
        }
        return nil
    }

    private mutating func read(
        _ binding: PatternBindingSyntax, name: String, in variable: VariableDeclSyntax, sharedType: TypeSyntax?
    ) -> StoredProperty? {
        let attributeMark = attribute("Attribute", in: variable)
        let relationshipMark = attribute("Relationship", in: variable)
        if let accessors = binding.accessorBlock, Self.isComputed(accessors) {
            refuseMarks(
                [(attributeMark, "Attribute"), (relationshipMark, "Relationship")], onComputed: name, in: variable)
            return nil
        }
        if attribute("Transient", in: variable) != nil {
            let type = binding.typeAnnotation?.type ?? sharedType
            let isOptional =
                type.map { $0.is(OptionalTypeSyntax.self) || $0.trimmedDescription.hasPrefix("Optional<") } ?? false
            if binding.initializer == nil && !isOptional {
                diagnose(.transientWithoutValue(property: name), at: Syntax(binding))
            }
            return nil
        }
        guard let type = declaredType(of: binding, name: name, sharedType: sharedType) else { return nil }
        if variable.bindingSpecifier.tokenKind == .keyword(.let), binding.initializer != nil {
            let fix = FixIt(
                message: MoltFixIt(message: "Replace 'let' with 'var'"),
                changes: [
                    .replace(
                        oldNode: Syntax(variable.bindingSpecifier),
                        newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var))))
                ])
            diagnose(.letWithInitialValue(property: name), at: Syntax(variable.bindingSpecifier), fixIts: [fix])
            return nil
        }
        let (base, isOptional) = Self.unwrappingOptional(type)
        guard let kind = kind(of: type, base: base, isOptional: isOptional, name: name, in: variable) else {
            return nil
        }
        if case .attribute = kind, let relationshipMark {
            diagnose(.relationshipOnAttribute(property: name), at: Syntax(relationshipMark))
            return nil
        }
        if case .attribute = kind {
        } else if let attributeMark {
            diagnose(.attributeOnRelationship(property: name), at: Syntax(attributeMark))
            return nil
        }
        if refusesMisfitArguments(of: kind, relationshipMark, name: name) { return nil }
        var defaultValue: ExprSyntax?
        if case .attribute = kind, let value = binding.initializer?.value, Self.isLiteral(value) {
            defaultValue = value
        }
        return StoredProperty(
            name: name, type: type.trimmed, baseType: base.trimmed, kind: kind, isOptional: isOptional,
            defaultValue: defaultValue,
            attributeMark: attributeMark, relationshipMark: relationshipMark)
    }

    /// Diagnoses the `@Relationship` arguments that do not fit the relationship's kind (a to-many required or
    /// indexed, a to-one with a minimum count); whether one did.
    private mutating func refusesMisfitArguments(
        of kind: StoredProperty.Kind, _ mark: AttributeSyntax?, name: String
    ) -> Bool {
        switch kind {
        case .toMany:
            return refusesRequired(mark, name: name)
                || refuses("indexed", "true", .indexedToMany(property: name), in: mark)
        case .toOne: return refuses("minimumCount", nil, .minimumCountOnToOne(property: name), in: mark)
        case .attribute: return false
        }
    }

    /// Diagnoses `@Relationship(isOptional: false)` on a to-many property (it takes a minimum count instead);
    /// whether it did.
    private mutating func refusesRequired(_ mark: AttributeSyntax?, name: String) -> Bool {
        refuses("isOptional", "false", .requiredToMany(property: name), in: mark)
    }

    /// Diagnoses the argument `label: value` of `mark` (any value when nil), when it is there; whether it was.
    private mutating func refuses(
        _ label: String, _ value: String?, _ diagnostic: MoltDiagnostic, in mark: AttributeSyntax?
    ) -> Bool {
        guard
            let argument = mark?.arguments?.as(LabeledExprListSyntax.self)?.first(where: {
                $0.label?.text == label && value.map($0.expression.trimmedDescription.elementsEqual) ?? true
            })
        else { return false }
        diagnose(diagnostic, at: Syntax(argument))
        return true
    }

    /// Diagnoses `@Attribute` or `@Relationship` on a computed property, with a fix-it that removes it.
    private mutating func refuseMarks(
        _ marks: [(AttributeSyntax?, String)], onComputed name: String, in variable: VariableDeclSyntax
    ) {
        for (mark, label) in marks {
            guard let mark else { continue }
            var stripped = variable
            stripped.attributes = variable.attributes.filter { $0.as(AttributeSyntax.self)?.id != mark.id }
            stripped.leadingTrivia = variable.leadingTrivia
            diagnose(
                .computedMarkedStored(property: name, attribute: label), at: Syntax(mark),
                fixIts: [
                    FixIt(
                        message: MoltFixIt(message: "Remove '@\(label)'"),
                        changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(stripped))])
                ])
        }
    }

    /// The property's written type; nil (diagnosed, with a fix-it when the initial value is a literal) without one.
    private mutating func declaredType(
        of binding: PatternBindingSyntax, name: String, sharedType: TypeSyntax?
    ) -> TypeSyntax? {
        if let type = binding.typeAnnotation?.type ?? sharedType { return type }
        var fixIts: [FixIt] = []
        if let value = binding.initializer?.value, let literalType = Self.literalType(value) {
            var annotated = binding
            annotated.pattern = binding.pattern.trimmed
            annotated.typeAnnotation = TypeAnnotationSyntax(
                colon: .colonToken(trailingTrivia: .space),
                type: TypeSyntax(IdentifierTypeSyntax(name: .identifier(literalType))),
                trailingTrivia: .space)
            fixIts.append(
                FixIt(
                    message: MoltFixIt(message: "Add ': \(literalType)'"),
                    changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(annotated))]))
        }
        diagnose(.missingType(property: name), at: Syntax(binding.pattern), fixIts: fixIts)
        return nil
    }

    /// `T` and whether it was optional, for `T?` and `Optional<T>`; the type itself otherwise.
    private static func unwrappingOptional(_ type: TypeSyntax) -> (base: TypeSyntax, isOptional: Bool) {
        if let optional = type.as(OptionalTypeSyntax.self) { return (optional.wrappedType, true) }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
            let argument = identifier.genericArgumentClause?.arguments.first?.argument.as(TypeSyntax.self)
        {
            return (argument, true)
        }
        return (type, false)
    }

    /// What the property stores: a relationship (never optional), an attribute of a known type, or of the app's
    /// own type; nil (diagnosed, with fix-its) for anything else.
    private mutating func kind(
        of type: TypeSyntax, base: TypeSyntax, isOptional: Bool, name: String, in variable: VariableDeclSyntax
    ) -> StoredProperty.Kind? {
        if let (generic, destination) = Self.relationship(base) {
            guard !isOptional else {
                let fix = type.as(OptionalTypeSyntax.self).map { optional in
                    FixIt(
                        message: MoltFixIt(message: "Remove '?'"),
                        changes: [
                            .replace(
                                oldNode: Syntax(optional),
                                newNode: Syntax(optional.wrappedType.with(\.trailingTrivia, optional.trailingTrivia)))
                        ])
                }
                diagnose(
                    .optionalRelationship(property: name, type: base.trimmedDescription), at: Syntax(type),
                    fixIts: fix.map { [$0] } ?? [])
                return nil
            }
            return generic == "ToOne" ? .toOne(destination: destination) : .toMany(destination: destination)
        }
        if let simple = Self.simpleName(base), let attributeType = Self.attributeTypes[simple] {
            return .attribute(type: attributeType)
        }
        if Self.isNamedType(base) { return .attribute(type: nil) }
        var marked = variable.with(\.leadingTrivia, [])
        let transient = AttributeSyntax(
            attributeName: IdentifierTypeSyntax(name: .identifier("Transient")), trailingTrivia: .space)
        marked.attributes = AttributeListSyntax([.attribute(transient)] + Array(marked.attributes))
        marked.leadingTrivia = variable.leadingTrivia
        let fix = FixIt(
            message: MoltFixIt(message: "Mark '\(name)' '@Transient'"),
            changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(marked))])
        diagnose(.unsupportedType(property: name, type: type.trimmedDescription), at: Syntax(type), fixIts: [fix])
        return nil
    }

    /// Whether an accessor block makes a property computed (a getter), rather than observed (`didSet`).
    static func isComputed(_ block: AccessorBlockSyntax) -> Bool {
        switch block.accessors {
        case .getter: return true
        case .accessors(let list):
            return list.contains {
                ["get", "set", "_read", "_modify", "unsafeAddress", "unsafeMutableAddress"].contains(
                    $0.accessorSpecifier.text)
            }
        }
    }

    /// `String` for `String`, `Swift.String` and `Foundation.Date`-style spellings.
    static func simpleName(_ type: TypeSyntax) -> String? {
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            return identifier.name.text
        }
        if let member = type.as(MemberTypeSyntax.self),
            ["Swift", "Foundation"].contains(member.baseType.trimmedDescription),
            member.genericArgumentClause == nil
        {
            return member.name.text
        }
        return nil
    }

    /// Whether a type is a plain name (`Status`, `Recipe.Kind`): one of the app's, which must conform to
    /// `PersistentValue` (the compiler says so if it does not). Arrays, dictionaries, tuples, functions and
    /// generic types are not.
    static func isNamedType(_ type: TypeSyntax) -> Bool {
        if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.genericArgumentClause == nil }
        if let member = type.as(MemberTypeSyntax.self) {
            return member.genericArgumentClause == nil && isNamedType(member.baseType)
        }
        return false
    }

    /// `("ToOne", "Folder")` for `ToOne<Folder>` (or `Molt.ToOne<V2.Folder>`).
    static func relationship(_ type: TypeSyntax) -> (String, String)? {
        let name: String
        let clause: GenericArgumentClauseSyntax?
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            (name, clause) = (identifier.name.text, identifier.genericArgumentClause)
        } else if let member = type.as(MemberTypeSyntax.self), member.baseType.trimmedDescription == "Molt" {
            (name, clause) = (member.name.text, member.genericArgumentClause)
        } else {
            return nil
        }
        guard ["ToOne", "ToMany"].contains(name), let argument = clause?.arguments.first?.argument else { return nil }
        let destination =
            argument.trimmedDescription.split(separator: ".").last.map(String.init) ?? argument.trimmedDescription
        return (name, destination)
    }

    /// Whether an initial value is a literal, which the schema can record as the attribute's default.
    static func isLiteral(_ expression: ExprSyntax) -> Bool {
        if expression.is(IntegerLiteralExprSyntax.self) || expression.is(FloatLiteralExprSyntax.self)
            || expression.is(BooleanLiteralExprSyntax.self)
        {
            return true
        }
        if let string = expression.as(StringLiteralExprSyntax.self) {
            return string.segments.allSatisfy { $0.is(StringSegmentSyntax.self) }
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return prefix.expression.is(IntegerLiteralExprSyntax.self)
                || prefix.expression.is(FloatLiteralExprSyntax.self)
        }
        return false
    }

    /// The type a literal initial value has by default, for the missing-annotation Fix-It.
    static func literalType(_ expression: ExprSyntax) -> String? {
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return literalType(prefix.expression)
        }
        if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
        if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if expression.is(StringLiteralExprSyntax.self) { return "String" }
        return nil
    }
}
