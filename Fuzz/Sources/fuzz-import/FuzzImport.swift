import FuzzSupport
import Molt
@_spi(Fuzzing) import MoltTesting

/// The store every input is imported into (and rolled back from): in memory, at the fixture schema.
let store = try! Store.inMemory(schema: FuzzSupport.schema)

/// libFuzzer's entry: the bytes as a `molt import` data file, read by the streaming reader and imported, links
/// and inverses checked, then rolled back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImport(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let input = Array(UnsafeBufferPointer(start: bytes, count: count))
    FuzzSupport.expectingOnlyMoltErrors { _ = try FuzzingEntryPoints.importDataFile(input, into: store) }
    return 0
}

/// The executable's entry point (SwiftPM links it as `main`): libFuzzer's driver on ``fuzzImport(_:_:)``.
@_cdecl("fuzz_import_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzImport)
}
