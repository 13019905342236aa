import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: derives a struct's entity and its column-ordered conversion, and conforms it to
/// `PersistentModel`.
///
/// The member part adds `persistentID` and reports misuse; the extension part adds the conformance, `entity`,
/// `init(row:)`, `encode(to:)` and `propertyName(for:)` in an extension, so the struct keeps its memberwise
/// initializer.
public struct ModelMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let structDecl = declaration.as(StructDeclSyntax.self) else {
            diagnoseNotAStruct(declaration, node: node, in: context)
            return []
        }
        if structDecl.genericParameterClause != nil {
            context.diagnose(Diagnostic(node: Syntax(structDecl.name), message: MoltDiagnostic.generic))
            return []
        }
        // Read the properties here only to report misuse once; the extension part reads them again silently.
        _ = PropertyReader(declaration: declaration, context: context)
        let declaresID = declaration.memberBlock.members.contains {
            $0.decl.as(VariableDeclSyntax.self)?.bindings.contains { $0.pattern.trimmedDescription == "persistentID" }
                ?? false
        }
        var members: [DeclSyntax] = []
        if !declaresID {
            members.append(
                """
                /// The identifier Molt gave this object when it was inserted, or nil before.
                \(raw: access(of: declaration))var persistentID: Int64? = nil
                """)
        }
        if let initializer = publicMemberwiseInit(structDecl) { members.append(initializer) }
        // Inside the struct, where the parent's name resolves as the user wrote it (a nested type included).
        if let parent = parentArgument(of: node) {
            members.append(
                """
                /// The model of the entity this one inherits from, as `@Model(parent:)` names it.
                \(raw: access(of: declaration))static var moltParent: any Molt.PersistentModel.Type { \(raw: parent).self }
                """)
        }
        return members
    }

    /// The arguments of the model's `Molt.Entity(…)`, with those of `@Model(parent:isAbstract:originalName:)`:
    /// `parent: Car.self` names the parent model's entity (through `moltParent`, declared in the struct where
    /// the name resolves); `isAbstract` is passed on as written.
    private static func entityArguments(
        of node: AttributeSyntax, typeName: String, properties: [StoredProperty]
    ) -> [String] {
        let arguments = node.arguments?.as(LabeledExprListSyntax.self)
        func argument(_ label: String) -> String? {
            arguments?.first(where: { $0.label?.text == label })?.expression.trimmedDescription
        }
        var result = entityArguments(
            typeName: typeName, originalName: argument("originalName"), listedIndexes: argument("indexes"),
            properties: properties)
        if let isAbstract = argument("isAbstract") { result.insert("isAbstract: \(isAbstract)", at: 1) }
        if parentArgument(of: node) != nil { result.insert("parent: Self.moltParent.entity.name", at: 1) }
        return result
    }

    /// The type `@Model(parent: Car.self)` names, without `.self`.
    static func parentArgument(of node: AttributeSyntax) -> String? {
        guard
            let text = node.arguments?.as(LabeledExprListSyntax.self)?.first(where: { $0.label?.text == "parent" })?
                .expression.trimmedDescription
        else { return nil }
        return text.hasSuffix(".self") ? String(text.dropLast(5)) : text
    }

    /// For a `public` (or `package`) model without an initializer of its own: the memberwise initializer Swift
    /// synthesizes only as internal, given the model's access so that other modules can create the model.
    ///
    /// Its parameters are Swift's: every stored `var`, and every `let` without an initial value, in order, with
    /// the initial value as the default argument (`nil` for an optional without one). An untyped property with a
    /// literal initial value (`@Transient var isSelected = false`) gets the literal's type, as Swift infers it.
    static func publicMemberwiseInit(_ declaration: StructDeclSyntax) -> DeclSyntax? {
        let access = access(of: declaration)
        guard access == "public " || access == "package ",
            !declaration.memberBlock.members.contains(where: { $0.decl.is(InitializerDeclSyntax.self) })
        else { return nil }
        var parameters: [String] = []
        var assignments: [String] = []
        for member in declaration.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                !variable.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) })
            else { continue }
            let bindings = Array(variable.bindings)
            for (index, binding) in bindings.enumerated() {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
                    name != "persistentID",
                    binding.accessorBlock.map({ !PropertyReader.isComputed($0) }) ?? true,
                    !(variable.bindingSpecifier.tokenKind == .keyword(.let) && binding.initializer != nil),
                    let type = bindings[index...].lazy.compactMap(\.typeAnnotation).first?.type.trimmedDescription
                        ?? binding.initializer.flatMap({ PropertyReader.literalType($0.value) })
                else { continue }
                let isOptional = type.hasSuffix("?") || type.hasPrefix("Optional<")
                let fallback =
                    binding.initializer.map { " = \($0.value.trimmedDescription)" } ?? (isOptional ? " = nil" : "")
                parameters.append("\(name): \(type)\(fallback)")
                assignments.append("self.\(name) = \(name)")
            }
        }
        let audience = access == "public " ? "public" : "package"
        return """
            /// Creates a value with every stored property (the memberwise initializer, \(raw: audience)).
            \(raw: access)init(\(raw: parameters.joined(separator: ", "))) {
                \(raw: assignments.joined(separator: "\n    "))
            }
            """
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let structDecl = declaration.as(StructDeclSyntax.self), structDecl.genericParameterClause == nil else {
            return []
        }
        let reader = PropertyReader(declaration: declaration, context: nil)
        guard !reader.failed else { return [] }
        let properties = reader.properties
        let access = access(of: declaration)
        let typeName = structDecl.name.text
        let attributes = properties.filter { if case .attribute = $0.kind { return true } else { return false } }
        let toOnes = properties.filter { if case .toOne = $0.kind { return true } else { return false } }
        let entityArguments = entityArguments(of: node, typeName: typeName, properties: properties)
        var decodeLines = ["self.persistentID = row.id"]
        for (index, property) in attributes.enumerated() {
            decodeLines.append("self.\(property.name) = try row.value(at: \(index))")
        }
        for (offset, property) in toOnes.enumerated() {
            decodeLines.append("self.\(property.name) = try .read(from: row, at: \(attributes.count + offset))")
        }
        for property in properties {
            if case .toMany = property.kind { decodeLines.append("self.\(property.name) = .init(ownerID: row.id)") }
        }
        let encodeLines =
            attributes.map { "columns.append(self.\($0.name))" } + toOnes.map { "self.\($0.name).write(to: &columns)" }
        let keyPathLines = properties.map { "if keyPath == \\Self.\($0.name) { return \(literal($0.name)) }" }

        let source: DeclSyntax = """
            extension \(type.trimmed): Molt.PersistentModel {
                /// The entity that stores `\(raw: typeName)`, derived by `@Model`.
                \(raw: access)static let entity: Molt.Entity = Molt.Entity(
                    \(raw: entityArguments.joined(separator: ",\n        "))
                )

                /// Reads a `\(raw: typeName)` from its stored columns.
                \(raw: access)init(row: Molt.ModelRow) throws {
                    \(raw: decodeLines.joined(separator: "\n        "))
                }

                /// Writes the stored properties in column order.
                \(raw: access)func encode(to columns: inout Molt.ModelColumns) {
                    \(raw: encodeLines.joined(separator: "\n        "))
                }

                /// The stored name of a key path.
                \(raw: access)static func propertyName(for keyPath: PartialKeyPath<Self>) -> String? {
                    \(raw: (keyPathLines + ["return nil"]).joined(separator: "\n        "))
                }
            }
            """
        guard let ext = source.as(ExtensionDeclSyntax.self) else { return [] }
        return [ext]
    }

    /// The arguments of the `Molt.Entity(…)` that stores the model: name, key, attributes, relationships, indexes.
    private static func entityArguments(
        typeName: String, originalName: String?, listedIndexes: String?, properties: [StoredProperty]
    ) -> [String] {
        var attributeLines: [String] = []
        var relationshipLines: [String] = []
        for property in properties {
            var arguments = ["\(literal(property.name))"]
            switch property.kind {
            case .attribute(let type):
                arguments.append(type.map { ".\($0)" } ?? "Self.storedAttributeType(of: \\Self.\(property.name))")
                if property.isOptional { arguments.append("isOptional: true") }
                if let value = property.defaultValue {
                    arguments.append(
                        "default: (\(value.trimmedDescription) as \(property.type.trimmedDescription)).moltValue")
                }
                if type == nil { arguments.append("shape: Self.storedShape(of: \\Self.\(property.name))") }
            case .toOne(let destination): arguments.append("to: \(literal(destination))")
            case .toMany(let destination):
                arguments.append("toMany: \(literal(destination))")
                if property.isOrdered { arguments.append("ordered: true") }
            }
            if case .attribute = property.kind {
                if let original = property.originalName { arguments.append("originalName: \(literal(original))") }
                attributeLines.append("Molt.Attribute(\(arguments.joined(separator: ", ")))")
                continue
            }
            if let inverse = property.inverse { arguments.append("inverse: \(literal(inverse))") }
            if let rule = property.deleteRule { arguments.append("deleteRule: .\(rule)") }
            if let original = property.originalName { arguments.append("originalName: \(literal(original))") }
            if property.isRequired { arguments.append("isOptional: false") }
            // The initializer's last parameter: a ToOne with one was diagnosed.
            if let minimum = property.minimumCount { arguments.append("minimumCount: \(minimum.trimmedDescription)") }
            relationshipLines.append("Molt.Relationship(\(arguments.joined(separator: ", ")))")
        }
        let indexLines = properties.compactMap { property -> String? in
            switch property.kind {
            case .attribute where property.isUnique && !property.isPrimaryKey:
                "Molt.Index([\(literal(property.name))], unique: true)"
            case .attribute where property.isIndexed, .toOne where property.isIndexed:
                "Molt.Index([\(literal(property.name))])"
            default: nil
            }
        }
        var entityArguments = [literal(typeName)]
        if let key = properties.first(where: \.isPrimaryKey) {
            entityArguments.append("primaryKey: \(literal(key.name))")
        }
        if let originalName { entityArguments.append("originalName: \(originalName)") }
        entityArguments.append("attributes: \(list(attributeLines))")
        if !relationshipLines.isEmpty { entityArguments.append("relationships: \(list(relationshipLines))") }
        if let listed = listedIndexes {
            entityArguments.append("indexes: \(indexLines.isEmpty ? "" : "\(list(indexLines)) + ")\(listed)")
        } else if !indexLines.isEmpty {
            entityArguments.append("indexes: \(list(indexLines))")
        }
        return entityArguments
    }

    static func diagnoseNotAStruct(
        _ declaration: some DeclGroupSyntax, node: AttributeSyntax, in context: some MacroExpansionContext
    ) {
        let keyword: TokenSyntax?
        let kind: String
        if let c = declaration.as(ClassDeclSyntax.self) {
            (keyword, kind) = (c.classKeyword, "class")
        } else if let a = declaration.as(ActorDeclSyntax.self) {
            (keyword, kind) = (a.actorKeyword, "actor")
        } else if let e = declaration.as(EnumDeclSyntax.self) {
            (keyword, kind) = (e.enumKeyword, "enum")
        } else if let p = declaration.as(ProtocolDeclSyntax.self) {
            (keyword, kind) = (p.protocolKeyword, "protocol")
        } else {
            (keyword, kind) = (nil, "extension")
        }
        var fixIts: [FixIt] = []
        if let keyword, kind == "class" || kind == "actor" {
            fixIts.append(
                FixIt(
                    message: MoltFixIt(message: "Make it a struct"),
                    changes: [
                        .replace(
                            oldNode: Syntax(keyword), newNode: Syntax(keyword.with(\.tokenKind, .keyword(.struct))))
                    ]))
        }
        context.diagnose(Diagnostic(node: Syntax(node), message: MoltDiagnostic.notAStruct(kind: kind), fixIts: fixIts))
    }

    /// The access modifier to give generated members: the struct's own when it is public or package.
    static func access(of declaration: some DeclGroupSyntax) -> String {
        for modifier in declaration.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }

    static func literal(_ text: String) -> String { "\"\(text)\"" }

    static func list(_ lines: [String]) -> String {
        lines.isEmpty ? "[]" : "[\n            " + lines.joined(separator: ",\n            ") + ",\n        ]"
    }
}
