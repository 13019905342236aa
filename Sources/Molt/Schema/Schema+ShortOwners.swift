extension Schema {
    /// What a migration into a version does with the existing objects that hold fewer destinations than a
    /// minimum count the version adds or raises (``Relationship/minimumCount``): its *short owners*.
    ///
    /// Core Data checks a to-many relationship's minimum count only for the objects a save changes, never during
    /// a lightweight migration: a store that went through a version raising a minimum holds owners under it, and
    /// its user cannot fix them. Molt does the same by default (``kept``): the step commits, keeps those owners
    /// as they are, and lists them in the step's history entry (``MigrationStepRecord/underMinimumCount``,
    /// `molt info`) and in ``Store/verify()`` (`molt check STORE`). The minimum still holds for every write that
    /// inserts an owner or removes links of one, and for the objects a later stage inserts or unlinks.
    ///
    /// A version whose data must hold the minimum everywhere opts into ``refused``: the step is refused while any
    /// owner is short, naming them and the fix (a custom stage that links them, or deletes them).
    ///
    /// ```swift
    /// let v2 = Schema(version: 2) {
    ///     Entity("Question") { Relationship("options", toMany: "Option", minimumCount: 2) }
    ///     Entity("Option") { Attribute("label", .string) }
    /// }
    /// .refusingShortOwners()   // every question must hold two options once the store is at version 2
    /// ```
    ///
    /// In a snapshot: `"shortOwners": "refused"` (absent for ``kept``). With typed models:
    /// `static let shortOwners: Schema.ShortOwners = .refused` in the `VersionedSchema`.
    public enum ShortOwners: String, Hashable, Sendable, Codable {
        /// The step keeps the short owners as they are and lists them in its history entry (the default).
        case kept
        /// The step is refused while an owner is short, naming the owners and the fix.
        case refused
    }

    /// A copy of this version whose migration refuses existing objects that hold fewer destinations than a
    /// minimum count it adds or raises, instead of keeping them (``ShortOwners/refused``).
    ///
    /// ```swift
    /// let v2 = Schema(version: 2) { … }.refusingShortOwners()
    /// let store = try Store.open(at: url, schema: v2)
    /// // MoltError.validationFailed: "The migration to version 2 left the relationship 'Question.options' under
    /// // its minimum count of 2, so nothing was committed: 1 'Question' object holds fewer than 2 'options'
    /// // (_id 2: 0). Link them (or delete them) in a custom stage, or lower the minimum count …"
    /// ```
    ///
    /// - Returns: The schema, refusing short owners.
    public func refusingShortOwners() -> Schema {
        var copy = self
        copy.shortOwners = .refused
        return copy
    }
}
