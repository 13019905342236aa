// swift-tools-version: 6.1
// The seed documents' scenarios written with Molt's typed API: one executable per seed, each checking its own
// result and exiting non-zero when a value is wrong.
// Run one: swift run --package-path Examples RealmMemoApp
import PackageDescription

let examples = ["RealmMemoApp", "RealmPeople", "CoreDataNotes", "RealmBasics", "SwiftDataTastings"]

let package = Package(
    name: "MoltExamples",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Molt", path: "../")],
    targets: examples.map { name in
        .executableTarget(name: name, dependencies: [.product(name: "MoltMacros", package: "Molt")], path: "Sources/\(name)")
    },
    swiftLanguageModes: [.v6]
)
