/// Every scenario, in the order they run.
enum Scenarios {
    static let all: [any Scenario] = [
        AddAttribute(),
        RenameAttribute(),
        RemoveAttribute(),
        RebuildTable(),
        EnumerateObjects(),
        MappingExpression(),
        EnumerateMemory(),
        EnumerateBigRows(),
        TypedRecords(),
        TypedInsertLinks(),
        Observations(),
        MappingMerge(),
        MappingLinks(),
        Export(),
        Import(),
        MigrateCLIFlat(),
        OpenWide(),
        DecimalSum(),
        PostgresCatalogChange.addAttribute,
        PostgresCatalogChange.renameAttribute,
        PostgresTypeChange(),
        PostgresEnumerateObjects(),
        PostgresConcurrentReads(),
        PostgresImport(),
    ]
}
