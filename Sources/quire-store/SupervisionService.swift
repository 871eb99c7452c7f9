import DocumentStore
import ServiceLifecycle
import Supervision
import UnixSignals

/// The service of `quire serve`'s group that talks with the supervisor while the server runs: SIGHUP asks for a
/// reload, the status line follows the library's activity (read every 2 seconds, sent when it changes), and the
/// start of the graceful shutdown is `STOPPING=1`. It comes last in the group, so it is the first told of the
/// shutdown, before the server stops taking connections.
struct SupervisionService: Service {
    let notifier: SupervisorNotifier
    let control: ServiceControl
    /// SIGHUP, trapped before the group starts (from then on SIGHUP no longer ends the process).
    let hangups: UnixSignalsSequence

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in hangups { notifier.reloadRequested() }
                }
                group.addTask {
                    while !Task.isCancelled {
                        if let activity = control.activity() { notifier.statusChanged(activity.description) }
                        try? await Task.sleep(for: .seconds(2))
                    }
                }
            }
        }
        notifier.stopping()
    }
}
