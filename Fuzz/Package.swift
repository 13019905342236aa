// swift-tools-version: 6.1
// Coverage-guided fuzzing (libFuzzer) of Molt's readers of untrusted text: schema snapshots, mapping SQL,
// `molt import` data files. A nested package, so that only `Fuzz/run` builds with `-sanitize=fuzzer`.
import PackageDescription

let package = Package(
    name: "MoltFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Molt", path: "../")
    ],
    targets: [
        // What the targets share: the schema they read into, and the rule that only a MoltError may escape.
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer", .product(name: "Molt", package: "Molt"), .product(name: "MoltTesting", package: "Molt"),
            ]),
        // libFuzzer's driver, called from each target's entry point.
        .target(name: "CLibFuzzer"),
        .executableTarget(
            name: "fuzz-snapshot", dependencies: ["FuzzSupport", .product(name: "Molt", package: "Molt")]),
        .executableTarget(
            name: "fuzz-mapping",
            dependencies: [
                "FuzzSupport", .product(name: "Molt", package: "Molt"), .product(name: "MoltTesting", package: "Molt"),
            ]),
        .executableTarget(
            name: "fuzz-import",
            dependencies: [
                "FuzzSupport", .product(name: "Molt", package: "Molt"), .product(name: "MoltTesting", package: "Molt"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
