#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirDevice
import CallDirReader
import CallDirSimulator

// `calldir-launches INDEX FOLDER [--reloads N] [--request-size S] [--kill [--no-confirm]]`: how many app
// launches, requests and entries it takes to finish loading INDEX when the app may run only
// N reloads per launch (docs/BENCHMARKS-LOG.md, "Finishing a big list across launches"). A phone
// made of `CallKitSimulator` and the library's `CallDirectoryExtensionRequest`, driven by
// `ReloadCoordinator` as an app would. At the N-th reload of a launch:
// - default: the background time ends; the expiration handler cancels `loadAll`, which keeps
//   that request (the extension succeeded) and stops cleanly;
// - `--kill`: the app is killed while `reloadExtension` is under way: it never sees the outcome;
//   with `--no-confirm` the extension does not confirm accepted requests, which is the protocol
//   before issue 36 (the next launch then starts over).
// Each launch is a new coordinator on the same FOLDER (emptied first). Counts, no timings.

final class Phone: CallDirectoryPlatform, @unchecked Sendable {  // one launch at a time
    let simulator = CallKitSimulator()
    let folder: SharedFolder
    let requestSize: Int
    let allowed: Int
    let kill: Bool
    let confirm: Bool
    var reloadsThisLaunch = 0
    var requests = 0
    var entriesFed = 0
    /// The launch under way: resumed when the app is killed (its `loadAll` never returns).
    var launch: Launch?

    init(folder: SharedFolder, requestSize: Int, allowed: Int, kill: Bool, confirm: Bool) {
        self.folder = folder
        self.requestSize = requestSize
        self.allowed = allowed
        self.kill = kill
        self.confirm = confirm
    }

    func reloadExtension() async -> CallDirectoryErrorCode? {
        reloadsThisLaunch += 1
        let result = runExtension()
        if reloadsThisLaunch >= allowed {
            if kill {
                launch?.end(finished: false)
                await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }  // never returns: the app is gone
            }
            withUnsafeCurrentTask { $0?.cancel() }  // the expiration handler cancels loadAll
        }
        return result
    }

    func runExtension() -> CallDirectoryErrorCode? {
        simulator.beginRequest()
        let request = CallDirectoryExtensionRequest(folder: folder, requestSize: requestSize)
        do {
            _ = try request.run(into: simulator)
        } catch {
            simulator.interrupt(.unknown(0))
            return .unknown(0)
        }
        let report = simulator.endRequest()
        requests += 1
        entriesFed += report.adds + report.removes
        if report.succeeded, confirm { request.completed(expired: false) }
        return report.failure?.code
    }

    func isExtensionEnabled() async -> Bool? { true }
    func beginBackgroundTask() async -> Int { 1 }
    func endBackgroundTask(_ token: Int) async {}
}

/// How one launch ended, reported once: by its `loadAll` returning, or by the kill.
final class Launch: @unchecked Sendable {  // `end` runs once, on the launch's own task
    let done: CheckedContinuation<Bool, Never>
    init(_ done: CheckedContinuation<Bool, Never>) { self.done = done }
    func end(finished: Bool) { done.resume(returning: finished) }
}

/// One launch: true when its `loadAll` returned finished.
func launch(_ phone: Phone) async -> Bool {
    phone.reloadsThisLaunch = 0
    let coordinator = ReloadCoordinator(folder: phone.folder, platform: phone)
    return await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
        let launch = Launch(done)
        phone.launch = launch
        Task { launch.end(finished: (try? await coordinator.loadAll())?.isFinished == true) }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, _ fallback: Int) -> Int {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let value = Int(arguments[i + 1]) else { return fallback }
    return value
}
guard arguments.count >= 2 else {
    print("usage: calldir-launches INDEX FOLDER [--reloads N] [--request-size S] [--kill] [--max-launches L]")
    exit(2)
}
let folder = SharedFolder(path: arguments[1])
for name in ["index.calldir", "previous.calldir", "checkpoint.pending", "checkpoint.committed", "checkpoint.taken"] {
    try? folder.remove(folder.path + "/" + name)
}
try folder.copyAtomically(arguments[0], to: folder.indexPath)
let entries = try CallDirIndex(path: folder.indexPath).metadata.deviceEntries
let phone = Phone(folder: folder, requestSize: option("--request-size", DeviceLoader.defaultRequestSize),
                  allowed: option("--reloads", 1), kill: arguments.contains("--kill"), confirm: !arguments.contains("--no-confirm"))
let maxLaunches = option("--max-launches", 100)
var launches = 0
var finished = false
while !finished, launches < maxLaunches {
    launches += 1
    finished = await launch(phone)
}
let held = phone.simulator.entryCount
let model = phone.kill ? (phone.confirm ? "killed" : "killed, no confirmation") : "time expired"
print("reloads/launch \(phone.allowed), \(model): \(finished ? "finished" : "NOT finished") after \(launches) launches, "
      + "\(phone.requests) requests, \(phone.entriesFed) entries fed for \(entries) (\((Double(phone.entriesFed) / Double(entries) * 100).rounded() / 100)x); device holds \(held)")
