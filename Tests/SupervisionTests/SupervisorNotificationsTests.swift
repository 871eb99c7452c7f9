import QuireTestSupport
import Supervision
import Testing

@Suite("The supervisor notifications (sd_notify) as a state machine")
struct SupervisorNotificationsTests {
    @Test("READY=1 is sent once, when the server listens, with the status known by then")
    func readyOnceWhenListening() throws {
        var machine = SupervisorNotifications(watchdogInterval: nil)
        var model = SupervisorModel(watchdogInterval: nil)
        try model.apply(machine.started())
        try model.apply(machine.statusChanged("0 documents open"))
        #expect(model.readyCount == 0)
        let ready = machine.listening(now: 10)
        #expect(ready == [.send("READY=1\nSTATUS=0 documents open")])
        try model.apply(ready)
        #expect(machine.listening(now: 11) == [])
        #expect(model.readyCount == 1)
    }

    @Test("a status line is sent when it changes, and only then")
    func statusWhenChanged() throws {
        var machine = SupervisorNotifications(watchdogInterval: nil)
        var model = SupervisorModel(watchdogInterval: nil)
        try model.apply(machine.listening(now: 1))
        #expect(machine.statusChanged("1 document open") == [.send("STATUS=1 document open")])
        #expect(machine.statusChanged("1 document open") == [])
        #expect(machine.statusChanged("2 documents open") == [.send("STATUS=2 documents open")])
    }

    @Test("the watchdog timer runs at half the supervisor's interval; without a watchdog nothing is pinged")
    func watchdogAtHalfTheInterval() throws {
        var watched = SupervisorNotifications(watchdogInterval: .seconds(4))
        #expect(watched.started() == [.startWatchdog(every: .seconds(2))])
        #expect(watched.watchdogTick() == [.send("WATCHDOG=1")])
        var unwatched = SupervisorNotifications(watchdogInterval: nil)
        #expect(unwatched.started() == [])
        #expect(unwatched.watchdogTick() == [])
    }

    @Test("SIGHUP: RELOADING=1 with MONOTONIC_USEC, the reload, then READY=1 with the status")
    func reloadThenReady() throws {
        var machine = SupervisorNotifications(watchdogInterval: nil)
        var model = SupervisorModel(watchdogInterval: nil)
        try model.apply(machine.statusChanged("idle"))
        try model.apply(machine.listening(now: 5))
        let reload = machine.reloadRequested(now: 1_234)
        #expect(reload == [.send("RELOADING=1\nMONOTONIC_USEC=1234\nSTATUS=reloading the configuration"), .reload])
        try model.apply(reload)
        try model.reloadFinished()
        let ready = machine.reloadFinished(now: 1_300)
        #expect(ready == [.send("READY=1\nSTATUS=idle")])
        try model.apply(ready)
        #expect(model.reloadCount == 1 && model.readyCount == 2 && !model.reloading)
    }

    @Test("SIGHUPs during a reload make one more reload after it; one before readiness waits for it")
    func reloadsCoalesce() throws {
        var machine = SupervisorNotifications(watchdogInterval: nil)
        var model = SupervisorModel(watchdogInterval: nil)
        #expect(machine.reloadRequested(now: 1) == [])
        let ready = machine.listening(now: 2)
        #expect(ready.count == 3 && ready.last == .reload)
        try model.apply(ready)
        #expect(machine.reloadRequested(now: 3) == [])
        #expect(machine.reloadRequested(now: 4) == [])
        try model.reloadFinished()
        let again = machine.reloadFinished(now: 5)
        try model.apply(again)
        #expect(again.last == .reload)
        try model.reloadFinished()
        try model.apply(machine.reloadFinished(now: 6))
        #expect(model.reloadCount == 2)
        #expect(!model.reloading && !model.reloadRunning)
    }

    @Test("STOPPING=1 is sent once; after it only watchdog pings, even during a reload")
    func stoppingIsFinal() throws {
        var machine = SupervisorNotifications(watchdogInterval: .seconds(1))
        var model = SupervisorModel(watchdogInterval: .seconds(1))
        try model.apply(machine.started())
        try model.apply(machine.listening(now: 1))
        try model.apply(machine.reloadRequested(now: 2))
        let stop = machine.stopping()
        #expect(stop == [.send("STOPPING=1\nSTATUS=stopping")])
        try model.apply(stop)
        try model.reloadFinished()
        #expect(machine.reloadFinished(now: 3) == [])
        #expect(machine.stopping() == [])
        #expect(machine.statusChanged("x") == [])
        #expect(machine.reloadRequested(now: 4) == [])
        try model.apply(machine.watchdogTick())
        #expect(model.pings == 1)
    }

    @Test("random histories: every action is one the supervisor can take, and every reload ends in READY=1")
    func randomHistories() throws {
        for seed in UInt64(1)...300 {
            var random = SeededGenerator(seed: seed)
            let watchdog: Duration? = random.below(2) == 0 ? nil : .milliseconds(100 * (1 + random.below(50)))
            var machine = SupervisorNotifications(watchdogInterval: watchdog)
            var model = SupervisorModel(watchdogInterval: watchdog)
            var now: UInt64 = 1
            var listened = false
            do {
                try model.apply(machine.started())
                for _ in 0..<(5 + random.below(60)) {
                    now += UInt64(random.below(1_000))
                    switch random.below(7) {
                    case 0: listened = true; try model.apply(machine.listening(now: now))
                    case 1: try model.apply(machine.statusChanged("documents \(random.below(3))"))
                    case 2: try model.apply(machine.watchdogTick())
                    case 3, 4: try model.apply(machine.reloadRequested(now: now))
                    case 5:
                        // The executor finishes the reload it runs, if any.
                        if model.reloadRunning {
                            try model.reloadFinished()
                            try model.apply(machine.reloadFinished(now: now))
                        }
                    default:
                        if random.below(4) == 0 { try model.apply(machine.stopping()) }
                    }
                }
                // Drain: the server listens, every reload finishes.
                if !listened { try model.apply(machine.listening(now: now + 1)) }
                while model.reloadRunning {
                    try model.reloadFinished()
                    try model.apply(machine.reloadFinished(now: now + 2))
                }
            } catch {
                Issue.record("seed \(seed): \(error)")
                continue
            }
            #expect(model.stopping || (model.ready && !model.reloading), "seed \(seed)")
        }
    }
}
