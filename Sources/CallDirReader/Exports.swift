// What the reader's API names comes with it: an index's ranges are `NumberRange`s, the user's
// layer and the contacts read numbers with a `NumberNormalizer` and refuse them with a
// `RejectReason`, and every call throws `CallDirError`. So `import CallDirReader` brings
// `CallDirNumbers` and `CallDirErrors` with it, as swift-nio's `NIO` re-exports `NIOCore`: an
// app or its extension keeps its one import, and the parser and the error type keep modules of
// their own (docs/MODULES.md).
@_exported import CallDirErrors
@_exported import CallDirNumbers
