import Foundation
import MoltAdoption
import Testing

/// The readers behind `Z_MODELCACHE`: DEFLATE's three kinds of block, and damaged input refused with an error,
/// never a crash (a damaged store's cache is input like any other).
@Suite("Model cache readers")
struct ModelCacheReaderTests {
    @Test("a block of fixed codes (with a back-reference) and a stored block decompress to their bytes")
    func blockKinds() throws {
        // zlib's raw DEFLATE of "hello hello hello hello" (fixed codes) and of "stored" (level 0: a stored block).
        let fixed: [UInt8] = [203, 72, 205, 201, 201, 87, 200, 64, 39, 1]
        #expect(try Inflate.decompress(fixed) == Array("hello hello hello hello".utf8))
        let stored: [UInt8] = [1, 6, 0, 249, 255, 115, 116, 111, 114, 101, 100]
        #expect(try Inflate.decompress(stored) == Array("stored".utf8))
        #expect(throws: Inflate.Malformed.self) { try Inflate.decompress(Array(fixed.dropLast(3))) }
        #expect(throws: Inflate.Malformed.self) { try Inflate.decompress([0x07]) }  // the reserved block type
        #expect(throws: Inflate.Malformed.self) { try Inflate.decompress(fixed, limit: 10) }
    }

    @Test(
        "every cut and every flipped byte of a real model cache is read or refused, never a crash",
        .enabled(if: ForeignStores.isPresent, "../shared/foreign-stores is absent beside the package"))
    func damagedCaches() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "coredataplus-cars/SampleModel_V1.sqlite", to: directory, as: "Store.sqlite")
        let blob = try #require(try ForeignStores.modelCache(of: url))
        var refused = 0
        for cut in stride(from: 0, to: blob.count, by: 7) {
            do { _ = try CoreDataModelCache.model(from: Array(blob.prefix(cut)), name: "cut") } catch { refused += 1 }
        }
        for position in stride(from: 0, to: blob.count, by: 3) {
            var flipped = blob
            flipped[position] ^= 0xA5
            do { _ = try CoreDataModelCache.model(from: flipped, name: "flipped") } catch { refused += 1 }
        }
        // Most damage is caught; what reads is a model anyway, which the store's tables must then match.
        #expect(refused > blob.count / 7)
        // The archive itself, damaged after decompression.
        let archive = try Inflate.decompress(blob)
        for position in stride(from: 0, to: archive.count, by: 5) {
            var flipped = archive
            flipped[position] ^= 0xFF
            _ = try? PropertyListValue(binary: flipped)
        }
    }
}
