import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct MoltMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = []
}
