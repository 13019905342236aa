import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in that expands Molt's macros.
@main
struct MoltMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        ModelMacro.self,
        AttributeMacro.self,
        RelationshipMacro.self,
        TransientMacro.self,
    ]
}
