#if canImport(BackgroundTasks) && canImport(UIKit)
import BackgroundTasks
import CallDirReader

/// Finishing a long load with background time (docs/CALLKIT.md, "Background time"). Register
/// once at launch (before `application(_:didFinishLaunchingWithOptions:)` returns); list
/// `identifier` under `BGTaskSchedulerPermittedIdentifiers` in the app's Info.plist and turn on
/// the "Background processing" mode. `schedule` asks iOS for a `BGProcessingTask`; when it
/// runs, `loadAll` resumes from the last confirmed request; when its time expires, the load is
/// cancelled between requests and the rest is scheduled again.
public enum CallDirBackgroundLoading {
    /// Registers the handler of the `BGProcessingTask` named `identifier`: it resumes
    /// `coordinator.loadAll()`, and schedules the rest when the load did not finish.
    public static func register(identifier: String, coordinator: ReloadCoordinator) {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
            let running = RunningTask(task)
            let work = Task {
                let finished = (try? await coordinator.loadAll())?.isFinished == true
                if !finished { schedule(identifier: identifier) }
                running.task.setTaskCompleted(success: finished)
            }
            task.expirationHandler = { work.cancel() }
        }
    }

    /// Asks iOS to run the rest of the load in the background (at its discretion: typically
    /// while the phone is idle; no promise of when).
    public static func schedule(identifier: String) {
        let request = BGProcessingTaskRequest(identifier: identifier)
        request.requiresNetworkConnectivity = false
        request.requiresExternalPower = false
        try? BGTaskScheduler.shared.submit(request)
    }
}

private final class RunningTask: @unchecked Sendable {  // BGTask is thread-safe for setTaskCompleted
    let task: BGTask
    init(_ task: BGTask) { self.task = task }
}
#endif
