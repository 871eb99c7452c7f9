import Foundation
import Testing

@Suite("quire watch, presenters, claims, coordinator")
struct StatusCommandTests {
    @Test("claims and presenters --json print one document with every key when nothing runs")
    func emptyStatus() throws {
        let sandbox = try CoordinationSandbox()
        for command in ["claims", "presenters"] {
            let result = try sandbox.quire([command, "--json"])
            #expect(result.status == 0)
            let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
            #expect(Set(json.keys) == ["scope", "hostPID", command])
            #expect(json["scope"] as? String == "user")
            #expect((json[command] as? [Any])?.isEmpty == true)
        }
    }

    /// Cross-process: needs the shared arbiter.
    @Test("[cross-process] claims shows the holder and a waiter blocked by it")
    func claims() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f")
        // A dedicated host: the holder's exit must not take the arbiter with it (see the failover test).
        let host = try sandbox.start(["coordinator"])
        #expect(host.waitFor("hosting the shared arbiter", inStandardError: true))
        defer { host.terminate() }
        let holder = try sandbox.startHolding("--write", file)
        #expect(holder.waitFor("held"))
        let waiter = try sandbox.start(["exec", "--read", file, "--", "true"])
        let paths = try Self.claimsOnceWaiting(sandbox)
        let path = try #require(paths.first)
        #expect(path["path"] as? String == URL(fileURLWithPath: file).resolvingSymlinksInPath().path)
        let holders = try #require(path["holders"] as? [[String: Any]])
        let waiters = try #require(path["waiters"] as? [[String: Any]])
        #expect(holders.count == 1 && waiters.count == 1)
        #expect(holders[0]["access"] as? String == "write" && holders[0]["state"] as? String == "holding")
        #expect(holders[0]["pid"] as? Int == Int(holder.pid))
        #expect((holders[0]["command"] as? String)?.contains("exec --write") == true)
        #expect(waiters[0]["state"] as? String == "waiting")
        let blockedBy = try #require(waiters[0]["blockedBy"] as? [[String: Any]])
        #expect(blockedBy.first?["pid"] as? Int == Int(holder.pid))
        for key in ["pid", "request", "command", "access", "options", "itemPath", "state", "ageSeconds", "blockedBy"] {
            #expect(holders[0][key] != nil, "missing key \(key)")
        }
        let text = try sandbox.quire(["claims"])
        #expect(text.output.contains("blocked by pid \(holder.pid)"))
        holder.closeInput()
        #expect(holder.waitForExit() == 0)
        #expect(waiter.waitForExit() == 0)
    }

    /// Cross-process: needs the shared arbiter.
    @Test("[cross-process] watch prints the messages a coordinated write sends; presenters lists it")
    func watch() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f")
        let watcher = try sandbox.start(["watch", "--json", "--count", "3", file])
        #expect(watcher.waitFor("watching 1 item(s)", inStandardError: true))
        let presenters = try sandbox.quire(["presenters", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: presenters.standardOutput) as? [String: Any])
        let entries = try #require(json["presenters"] as? [[String: Any]])
        #expect(entries.contains { $0["pid"] as? Int == Int(watcher.pid) && $0["observesUncoordinatedChanges"] as? Bool == true })
        #expect(try sandbox.quire(["write", file], input: Data("new\n".utf8)).status == 0)
        let lines = watcher.waitForLines(3)
        let callbacks = lines.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["callback"] as? String
        }
        #expect(Set(callbacks) == ["relinquishToWriter", "presentedItemDidChange", "reacquire"])
        #expect(watcher.waitForExit() == 0)
    }

    /// Cross-process: the first `quire` that coordinates hosts the arbiter; when it exits, a waiting `quire`
    /// must take over and still get its access (DESIGN §2.3).
    @Test("[cross-process] a waiting exec survives the exit of the process that hosted the arbiter")
    func failover() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f")
        let holder = try sandbox.startHolding("--write", file)
        #expect(holder.waitFor("held"))
        let waiter = try sandbox.start(["exec", "--read", file, "--", "echo", "granted"])
        _ = try Self.claimsOnceWaiting(sandbox)
        holder.closeInput()
        #expect(holder.waitForExit() == 0)
        let status = waiter.waitForExit()
        #expect(status == 0, "stderr: \(waiter.standardError)")
        #expect(waiter.standardOutput == "granted\n")
    }

    @Test("watch exits 0 on SIGTERM")
    func watchStops() throws {
        let sandbox = try CoordinationSandbox()
        let watcher = try sandbox.start(["watch", sandbox.path("f")])
        #expect(watcher.waitFor("watching 1 item(s)", inStandardError: true))
        watcher.terminate()
        #expect(watcher.waitForExit() == 0)
    }

    /// Cross-process: needs the shared arbiter.
    @Test("[cross-process] coordinator hosts the arbiter, a second one refuses with 69, SIGTERM stops it with 0")
    func coordinator() throws {
        let sandbox = try CoordinationSandbox()
        let host = try sandbox.start(["coordinator"])
        #expect(host.waitFor("hosting the shared arbiter at", inStandardError: true))
        #expect(host.standardError.contains("(pid \(host.pid))"))
        let second = try sandbox.quire(["coordinator"], timeout: 20)
        #expect(second.status == 69)
        #expect(second.errorLines.count == 1)
        let status = try sandbox.quire(["claims", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: status.standardOutput) as? [String: Any])
        #expect(json["hostPID"] as? Int == Int(host.pid))
        host.terminate()
        #expect(host.waitForExit() == 0)
    }

    /// The `claims` of `quire claims --json` once some path has a waiter (polled, for at most five seconds).
    static func claimsOnceWaiting(_ sandbox: CoordinationSandbox) throws -> [[String: Any]] {
        var paths: [[String: Any]] = []
        for _ in 0..<100 {
            let result = try sandbox.quire(["claims", "--json"])
            let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
            paths = json["claims"] as? [[String: Any]] ?? []
            if paths.contains(where: { ($0["waiters"] as? [Any])?.isEmpty == false }) { break }
            usleep(50_000)
        }
        return paths
    }
}
