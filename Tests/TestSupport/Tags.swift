import Foundation
import Testing

extension Tag {
    /// The slow end-to-end suites (real servers and processes over 127.0.0.1: the feed over
    /// HTTP, the reload coordinator's windows, the phone following a feed, Kamailio and sipp),
    /// which set the time of a whole `swift test`. CI runs everything.
    @Tag public static var endToEnd: Self
}

extension Trait where Self == ConditionTrait {
    /// Beside `.tags(.endToEnd)`: the suite is skipped when `CALLDIR_SKIP_END_TO_END=1`, the
    /// inner loop of README.md "Contributing". (Swift 6.3's `swift test` cannot filter by tag;
    /// `--skip tag:endToEnd` comes with Swift Testing's ST-0025 and will then do the same.)
    public static var skippedInFastLoop: Self {
        .disabled(if: ProcessInfo.processInfo.environment["CALLDIR_SKIP_END_TO_END"] == "1",
                  "an end-to-end suite, skipped by CALLDIR_SKIP_END_TO_END=1")
    }
}
