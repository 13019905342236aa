import Foundation
import Testing

/// The core's `package` declarations are a second API, used by the CLI, the test kit, the adoptions and the
/// engines (issue 34). Counted here so that it cannot grow unnoticed: a new one fails this test until the ceiling is
/// raised on purpose (say why in the commit), and a ceiling left well above the count fails too, so that what is
/// made internal stays internal.
@Suite("The core's package surface is counted")
struct PackageSurfaceTests {
    /// The number of `package` declarations in `Sources/Molt` at the last deliberate change (2026-12-03: 462,
    /// after the bulk writers moved into the core).
    static let ceiling = 462

    static func count() throws -> Int {
        let declaration = try NSRegularExpression(
            pattern:
                #"(?m)^\s*(@\w+(\([^)]*\))?\s+)*package\s+((static|final|mutating|nonisolated|override|convenience|indirect)\s+)*(func|var|let|init|struct|enum|class|protocol|typealias|subscript|actor|case)\b"#
        )
        return try ArchitectureTests.swiftFiles(in: "").reduce(0) { total, file in
            let code = try ArchitectureTests.code(file)
            return total + declaration.numberOfMatches(in: code, range: NSRange(code.startIndex..., in: code))
        }
    }

    @Test("no more package declarations than the ceiling, and the ceiling kept close to the count")
    func counted() throws {
        let count = try Self.count()
        #expect(count > 100, "the scan found \(count): it reads nothing")
        #expect(
            count <= Self.ceiling,
            "Sources/Molt declares \(count) package symbols, more than \(Self.ceiling): make the new ones internal, or raise PackageSurfaceTests.ceiling saying which module needs them"
        )
        #expect(
            count > Self.ceiling - 10,
            "Sources/Molt declares \(count) package symbols: lower PackageSurfaceTests.ceiling to \(count) so they stay few"
        )
    }
}
