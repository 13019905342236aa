// `molt-examples [example…]`: runs the seed documents' scenarios (all of them without arguments), each
// checking every value it reads; exits 1 when one differs.
import Foundation

let examples: [(name: String, run: @MainActor (Checker) async throws -> Void)] = [
    ("realm-memo-app", RealmMemoApp.run),  // seed 000
    ("realm-people", RealmPeople.run),  // seed 001
    ("core-data-notes", CoreDataNotes.run),  // seed 002
    ("realm-basics", RealmBasics.run),  // seed 003
    ("swiftdata-tastings", SwiftDataTastings.run),  // seed 004
    ("core-data-adoption", CoreDataAdoptionExample.run),  // issue 23: adopt a Core Data store, then migrate
    ("tastings-screen", TastingsScreen.run),  // seed 004: a view model over an observed typed query
]

let requested = Array(CommandLine.arguments.dropFirst())
let unknown = requested.filter { name in !examples.contains { $0.name == name } }
guard unknown.isEmpty else {
    print(
        "unknown example(s) \(unknown.joined(separator: ", ")); examples: \(examples.map(\.name).joined(separator: ", "))"
    )
    exit(2)
}
var failures = 0
for example in examples where requested.isEmpty || requested.contains(example.name) {
    let check = Checker(example.name)
    do { try await example.run(check) } catch { check.fail(error) }
    failures += check.failures
}
print(failures == 0 ? "every example checked its values" : "\(failures) check(s) failed")
exit(failures == 0 ? 0 : 1)
