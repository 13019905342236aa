import Foundation
import MoltMacros

/// What a note is: a raw-value enum stored as its `String` raw value.
public enum NoteKind: String, PersistentValue, CaseIterable {
    case idea, task, quote
}

/// How a note feels: a raw-value enum stored as its `Int` raw value, used as an optional attribute.
public enum Mood: Int, PersistentValue {
    case low = 1, high = 3
}

/// Where a note was written: a `Codable` value stored as JSON text in one attribute.
public struct Place: StoredAsJSON, Equatable {
    public var city: String
    public var latitude: Double
    public var longitude: Double

    public init(city: String, latitude: Double, longitude: Double) {
        self.city = city
        self.latitude = latitude
        self.longitude = longitude
    }
}
