import Foundation
import Molt

/// The first 24 bytes of a Realm file (realm-core's `SlabAlloc::Header`), and the streaming footer.
///
/// Two top refs (bytes 0–7 and 8–15, little-endian), the mnemonic `T-DB` (16–19), a file format version per
/// slot (20, 21), a reserved byte and the flags (23: bit 0 selects the slot in use). A file written in one go
/// (`writeCopy`, `compact`) is in "streaming" form: slot 0 holds all ones and the top ref is in a 16-byte footer
/// at the end of the file, followed by the cookie `0x3034125237E526C8`.
struct RealmFileHeader: Equatable {
    /// The file format version of the slot in use.
    let formatVersion: Int
    /// The offset of the top array (the group); 0 for a Realm with nothing committed.
    let topRef: Int
    /// Whether the file is in streaming form.
    let isStreaming: Bool

    /// The format versions this reader reads: those of realm-core 10 through 14 (Realm Swift 10.x).
    static let supportedVersions = 22...24

    private static let footerCookie: UInt64 = 0x3034_1252_37E5_26C8

    /// Reads and checks the header of `file`.
    ///
    /// - Throws: `MoltError.corruptStore` for a file too small, misaligned, without the mnemonic, or whose top ref
    ///   lies outside it; `.unsupportedFormat` for an encrypted file and for a format version outside 22–24,
    ///   naming the version and how to upgrade the file.
    init(_ file: RealmFileBytes) throws {
        let path = file.url.path
        guard file.size >= 24 else {
            throw file.damaged("it is \(file.size) bytes long, shorter than a Realm file's 24-byte header")
        }
        let mnemonic = file.bytes(16, 4)
        guard mnemonic == Array("T-DB".utf8) else {
            if Self.looksEncrypted(file) {
                throw MoltError(
                    .unsupportedFormat,
                    "The Realm file at \(path) is encrypted (it has no readable header, and its size is a whole number of 4,096-byte pages): Molt cannot read encrypted Realm files. Open it in the app with its 64-byte key and write an unencrypted copy (`realm.writeCopy(toFile:encryptionKey: nil)`), then adopt that copy."
                )
            }
            throw file.damaged("its header has no `T-DB` mnemonic, so it is not a Realm file (or an encrypted one)")
        }
        guard file.size % 8 == 0 else {
            throw file.damaged("its size (\(file.size) bytes) is not a multiple of 8, as every Realm file's is")
        }
        let slot = Int(file.byte(23) & 1)
        formatVersion = Int(file.byte(20 + slot))
        var top = file.unsigned(slot * 8, width: 8)
        isStreaming = slot == 0 && top == UInt64.max
        if isStreaming {
            guard file.size >= 24 + 16 else {
                throw file.damaged("it is in streaming form but too short (\(file.size) bytes) to hold its footer")
            }
            let cookie = file.unsigned(file.size - 8, width: 8)
            guard cookie == Self.footerCookie else {
                throw file.damaged(
                    "it is in streaming form but its footer has no end cookie (the file is probably truncated)")
            }
            top = file.unsigned(file.size - 16, width: 8)
        }
        guard top % 8 == 0, top < UInt64(file.size) else {
            throw file.damaged(
                "its top ref \(top) is not inside the file (\(file.size) bytes); it is probably truncated")
        }
        topRef = Int(top)
        if topRef == 0 && formatVersion == 0 { return }  // Nothing committed yet: an empty Realm.
        guard Self.supportedVersions.contains(formatVersion) else {
            throw Self.unsupported(formatVersion, path: path)
        }
        guard topRef > 0 else { throw file.damaged("its format is \(formatVersion) but its top ref is 0") }
    }

    /// The refusal of a format version outside 22–24.
    static func unsupported(_ version: Int, path: String) -> MoltError {
        if version < supportedVersions.lowerBound {
            return MoltError(
                .unsupportedFormat,
                "The Realm file at \(path) is in file format \(version), written by a Realm older than Realm Swift 10 (realm-core 10); Molt reads formats 22 to 24. Open it once with Realm Swift 10.x (which upgrades the file to format 22 or later when it opens it), then adopt it."
            )
        }
        return MoltError(
            .unsupportedFormat,
            "The Realm file at \(path) is in file format \(version), newer than the formats Molt reads (22 to 24, what Realm Swift 10.x and realm-core 14 write). Write a copy with a Realm release that writes format 24 or older, or adopt it with a newer Molt."
        )
    }

    /// realm-core encrypts in 4,096-byte pages behind a table of IVs: such a file has no readable header and
    /// fills whole pages.
    private static func looksEncrypted(_ file: RealmFileBytes) -> Bool {
        file.size >= 8192 && file.size % 4096 == 0 && file.bytes(0, 4) != [0, 0, 0, 0]
    }
}
