// swift-tools-version: 6.1
// The seed documents' scenarios written with Molt's typed API, in one executable that checks every value.
// Run: swift run --package-path Examples molt-examples [example…]
import PackageDescription

let package = Package(
    name: "MoltExamples",
    // The tastings screen's view model is @Observable: macOS 14 and later.
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Molt", path: "../")],
    targets: [
        .executableTarget(
            name: "molt-examples",
            dependencies: [
                .product(name: "MoltMacros", package: "Molt"), .product(name: "MoltAdoption", package: "Molt"),
            ],
            path: "Sources/molt-examples"
        )
    ],
    swiftLanguageModes: [.v6]
)
