extension ShapeProbe {
    /// The fields of an object: each key decoded is a field, optional when it was first asked for null.
    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let recorder: Recorder
        var codingPath: [CodingKey]
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { true }

        func decodeNil(forKey key: Key) throws -> Bool {
            recorder.nullable.insert(key.stringValue)
            return false
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let (value, shape) = try ShapeProbe.probe(type)
            recorder.add(key.stringValue, .found(shape))
            return value
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type, key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type, key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type, key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type, key) }

        /// The generic path, named apart so that the overloads above do not call themselves.
        private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            let generic: (T.Type, Key) throws -> T = decode(_:forKey:)
            return try generic(type, key)
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try nestedDecoder(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
            try nestedDecoder(key).unkeyedContainer()
        }

        func superDecoder() throws -> Decoder { ShapeProbe(recorder: recorder, codingPath: codingPath) }

        func superDecoder(forKey key: Key) throws -> Decoder { nestedDecoder(key) }

        private func nestedDecoder(_ key: Key) -> ShapeProbe {
            let nested = Recorder()
            recorder.add(key.stringValue, .nested(nested))
            return ShapeProbe(recorder: nested, codingPath: codingPath + [key])
        }
    }

    /// The elements of an array: one element is walked, and its shape is every element's.
    struct Unkeyed: UnkeyedDecodingContainer {
        let recorder: Recorder
        var codingPath: [CodingKey]
        var count: Int? { 1 }
        var currentIndex = 0
        var isAtEnd: Bool { currentIndex > 0 }

        init(recorder: Recorder, codingPath: [CodingKey]) {
            self.recorder = recorder
            self.codingPath = codingPath
        }

        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, shape) = try ShapeProbe.probe(type)
            if recorder.element == nil { recorder.element = .found(shape) }
            currentIndex += 1
            return value
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try nestedDecoder().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
            try nestedDecoder().unkeyedContainer()
        }

        mutating func superDecoder() throws -> Decoder { nestedDecoder() }

        private mutating func nestedDecoder() -> ShapeProbe {
            let nested = Recorder()
            if recorder.element == nil { recorder.element = .nested(nested) }
            currentIndex += 1
            return ShapeProbe(recorder: nested, codingPath: codingPath)
        }
    }

    /// A single value: its type's shape.
    struct Single: SingleValueDecodingContainer {
        let recorder: Recorder
        var codingPath: [CodingKey]

        func decodeNil() -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, shape) = try ShapeProbe.probe(type)
            recorder.single = shape
            return value
        }

        func decode(_ type: Bool.Type) throws -> Bool { try generic(type) }
        func decode(_ type: String.Type) throws -> String { try generic(type) }
        func decode(_ type: Double.Type) throws -> Double { try generic(type) }
        func decode(_ type: Float.Type) throws -> Float { try generic(type) }
        func decode(_ type: Int.Type) throws -> Int { try generic(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try generic(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try generic(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try generic(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try generic(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try generic(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try generic(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try generic(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try generic(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try generic(type) }

        private func generic<T: Decodable>(_ type: T.Type) throws -> T {
            let decode: (T.Type) throws -> T = decode(_:)
            return try decode(type)
        }
    }
}
