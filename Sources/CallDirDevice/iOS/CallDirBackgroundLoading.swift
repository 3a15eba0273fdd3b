#if canImport(BackgroundTasks) && canImport(UIKit)
import BackgroundTasks
import CallDirReader
import Foundation

/// Finishing a long load with background time, and loading at an allowance's expiry
/// (docs/CALLKIT.md, "Background time" and "The user's layer"). Register once at launch (before
/// `application(_:didFinishLaunchingWithOptions:)` returns); list `identifier` under
/// `BGTaskSchedulerPermittedIdentifiers` in the app's Info.plist and turn on the "Background
/// processing" mode. `schedule` asks iOS for a `BGProcessingTask`; when it runs, `loadAll`
/// resumes from the last confirmed request (and sends any expiry due by then); when its time
/// expires, the load is cancelled between requests. Then the task schedules the next one: the
/// rest of the load as soon as iOS allows, or else the layer's next expiry at its date (iOS keeps
/// one request per identifier, and a new one replaces the one pending).
public enum CallDirBackgroundLoading {
    /// Registers the handler of the `BGProcessingTask` named `identifier`: it resumes
    /// `coordinator.loadAll()`, and schedules the rest when the load did not finish.
    public static func register(identifier: String, coordinator: ReloadCoordinator) {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
            let running = RunningTask(task)
            let work = Task {
                let finished = (try? await coordinator.loadAll())?.isFinished == true
                if !finished {
                    schedule(identifier: identifier)
                } else if let expiry = try? await coordinator.nextExpiry() {
                    schedule(identifier: identifier, at: Date(timeIntervalSince1970: TimeInterval(expiry)))
                }
                running.task.setTaskCompleted(success: finished)
            }
            task.expirationHandler = { work.cancel() }
        }
    }

    /// Asks iOS to run a load in the background, not before `earliestBeginDate` (nil: no start
    /// delay). iOS promises no time: it runs the task at its discretion (typically while the
    /// phone is idle, possibly hours after the date, never for an app the user force-quit),
    /// only that it does not begin sooner. A request replaces the one pending for `identifier`.
    /// Returns false when iOS refused it (e.g. Background App Refresh off, `unavailable`; the
    /// identifier missing from `BGTaskSchedulerPermittedIdentifiers`).
    @discardableResult
    public static func schedule(identifier: String, at earliestBeginDate: Date? = nil) -> Bool {
        let request = BGProcessingTaskRequest(identifier: identifier)
        request.earliestBeginDate = earliestBeginDate
        request.requiresNetworkConnectivity = false
        request.requiresExternalPower = false
        do {
            try BGTaskScheduler.shared.submit(request)
            return true
        } catch {
            return false
        }
    }
}

private final class RunningTask: @unchecked Sendable {  // BGTask is thread-safe for setTaskCompleted
    let task: BGTask
    init(_ task: BGTask) { self.task = task }
}
#endif
