#if os(iOS)
import CallDirReader
import CallKit

// The whole adapter: CallKit's context already has every method `CallDirectoryContext` names.
// Add this file to the Call Directory extension target.
extension CXCallDirectoryExtensionContext: CallDirectoryContext {}
#endif
