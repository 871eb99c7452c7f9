import Foundation
import Testing

/// The --help of each service command (run by `quire-store`), pinned like `inspect --help` in HelpTests.
@Suite("quire service commands --help")
struct StoreHelpTests {
    @Test("each service command's --help is pinned", arguments: Array(pinned.keys).sorted())
    func help(_ command: String) throws {
        let result = try QuireProcess.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.output == Self.pinned[command])
    }

    @Test("quire --help lists the service commands")
    func rootHelp() throws {
        let result = try QuireProcess.run(["--help"])
        #expect(result.status == 0)
        for command in Self.pinned.keys.sorted() { #expect(result.output.contains("\n  \(command) ")) }
    }

    @Test(
        "the manual's synopsis of each service command names every option its --help lists",
        arguments: Array(pinned.keys).sorted())
    func readmeSynopsis(_ command: String) throws {
        let help = try QuireProcess.run([command, "--help"])
        #expect(help.status == 0)
        let options = Self.options(inHelp: help.output).subtracting(["--help", "--version"])
        #expect(!options.isEmpty)
        let synopsis = try Self.readmeSynopsis(of: command)
        let missing = options.filter { option in !["[", " ", "|"].contains { synopsis.contains($0 + option) } }
        #expect(missing.isEmpty, "the manual's synopsis of quire \(command) lacks \(missing.sorted()): \(synopsis)")
    }

    /// The long options of a --help's OPTIONS section.
    static func options(inHelp help: String) -> Set<String> {
        guard let section = help.range(of: "\nOPTIONS:\n") else { return [] }
        let words = help[section.upperBound...].split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," })
        return Set(words.filter { $0.hasPrefix("--") && $0.count > 2 }.map(String.init))
    }

    /// The lines of the manual's synopsis block (Docs/operating.md, under "The service from the command line") that
    /// describe `quire command`: its own lines (the first starts with `quire command`, the next ones are indented) and the
    /// comment lines (`# …`) that name it.
    static func readmeSynopsis(of command: String) throws -> String {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/operating.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.range(of: "## The service from the command line\n\n```\n"))
        let end = try #require(text.range(of: "\n```", range: section.upperBound..<text.endIndex))
        var lines: [Substring] = []
        var inCommand = false
        for line in text[section.upperBound..<end.lowerBound].split(separator: "\n") {
            if line.hasPrefix("quire ") {
                inCommand = line.hasPrefix("quire \(command) ")
            } else if line.hasPrefix("#") {
                inCommand = false
                let names = line.split(whereSeparator: { !$0.isLetter })
                if names.contains(Substring(command)) { lines.append(line) }
                continue
            }
            if inCommand { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }

    static let pinned: [String: String] = [
        "serve": """
        OVERVIEW: Run the document-store HTTP service until SIGINT or SIGTERM.

        Flags beat QUIRE_* environment variables (QUIRE_HOST, QUIRE_PORT, QUIRE_STORE, QUIRE_ROOTS
        colon-separated, QUIRE_TOKEN, QUIRE_COORDINATION_SCOPE, QUIRE_MAX_UPLOAD_BYTES,
        QUIRE_MAX_OPEN_DOCUMENTS, QUIRE_MAX_DPI, QUIRE_UPLOAD_BUDGET_BYTES, QUIRE_HEADER_TIMEOUT_SECONDS,
        QUIRE_IDLE_TIMEOUT_SECONDS, QUIRE_MIN_BODY_BYTES_PER_SECOND, QUIRE_BODY_TIMEOUT_SECONDS,
        QUIRE_MAX_CONNECTIONS, QUIRE_PDF_WORKERS, QUIRE_PDF_DEADLINE_SECONDS, QUIRE_PDF_MEMORY_MIB,
        QUIRE_DATABASE, QUIRE_CONTENT_CHECK_SECONDS, QUIRE_LOG_LEVEL, QUIRE_LOG_FORMAT), which beat the
        --config file, which beats the built-in defaults (config/quire.json; config/README.md lists every
        key). Prints "quire serve: listening on http://HOST:PORT" on standard output once it accepts
        connections (with the port chosen when --port is 0); the log goes to standard error. SIGINT or
        SIGTERM stops it gracefully; SIGHUP reads the configuration again (the token, the upload limit and
        the log level change at once; other keys need a restart). Under systemd (Type=notify) it reports
        READY=1 once it accepts connections, STATUS= lines, watchdog pings and STOPPING=1. Started by
        systemd's quire.socket (LISTEN_FDS, LISTEN_PID), it serves the TCP socket handed over instead of
        binding the host and port.

        Exit codes: 0 stopped by SIGINT or SIGTERM; 64 bad usage; 69 the address cannot be bound; 70
        internal failure; 73 the store directory or its catalog cannot be opened; 75 another quire serve
        uses the store (it holds the store's lock, quire.lock); 78 invalid configuration (one line naming
        the key, the value and its source), or a socket handed over that cannot be served.

        USAGE: quire serve <options>

        OPTIONS:
          --config <file>         A JSON configuration file (keys in config/README.md).
          --host <host>           The address to bind (default: 127.0.0.1, loopback only).
          --port <port>           The TCP port; 0 picks a free one (default: 8080).
          --store <dir>           The store directory: uploads and the catalog (default: ./.quire-data).
          --root <dir>            A directory whose files may be registered by path; repeat for more.
          --token <token>         The bearer token every change must carry (default: none).
          --database <url>        Run as a cluster node on this PostgreSQL,
                                  postgres://user[:password]@host[:port]/database (default: one node on
                                  SQLite).
          --coordination-scope <user|process>
                                  Coordinate with every process of the user, or only within the service.
          --max-upload-bytes <n>  The largest PDF an upload may send, in bytes (default: 104857600).
          --max-open-documents <n>
                                  How many documents stay open at once (default: 64).
          --max-dpi <n>           The largest resolution a page is rendered at (default: 600, at most 1200).
          --upload-budget-bytes <n>
                                  The most upload bytes in flight over all uploads; more get 503 (default:
                                  536870912).
          --header-timeout-seconds <n>
                                  How long a client may take to send a request head (default: 10).
          --idle-timeout-seconds <n>
                                  How long a connection may stay silent (default: 60).
          --min-body-bytes-per-second <n>
                                  The slowest average rate a request body may come at after its first 10
                                  seconds; 0 for no minimum (default: 16384).
          --body-timeout-seconds <n>
                                  The most time one request body may take (default: 1800).
          --max-connections <n>   The most connections held at once (default: 10000).
          --pdf-workers <n>       How many PDF worker processes render and extract text (default: one per
                                  core).
          --content-check-seconds <n>
                                  How often to compare the files of the documents this node owns with the
                                  catalog, for changes no watcher sees (a network file system's other
                                  hosts); 0 = never (default: 0).
          --pdf-deadline-seconds <n>
                                  How long one page render or text extraction may take (default: 10).
          --pdf-memory-mib <n>    The memory one PDF worker process may map, in MiB (default: 2048).
          --coordination-poll-microseconds <n>
                                  How long a thread waiting for a coordination grant polls before it
                                  sleeps, in µs (default: 200).
          --coordination-hand-over-poll-microseconds <n>
                                  How long a waiting thread polls the hand-over board for a grant another
                                  client passes on, in µs (default: 500).
          --coordination-host-poll-microseconds <n>
                                  How long the arbiter host polls its clients after handling one, in µs
                                  (default: 100).
          --workers-poll-microseconds <n>
                                  How long the service polls for a PDF worker's reply before it sleeps, in
                                  µs (default: 2000).
          --workers-idle-poll-microseconds <n>
                                  How long an idle PDF worker polls for its next request before it sleeps,
                                  in µs (default: 1500).
          --log-level <level>     The lowest level of log line written: trace, debug, info, notice,
                                  warning, error or critical (default: info).
          --log-format <text|json>
                                  How log lines are written: text (with a priority prefix and no time under
                                  systemd's journal) or json (default: text).
          --version               Show the version.
          -h, --help              Show help information.


        """,
        "status": """
        OVERVIEW: List the documents of a running service with their state, and why they are not clean.

        One line per document, oldest first: id, state (clean, dirty, conflict, deleted or damaged), why
        (unsaved edits; for a conflict its type, modification or deletion, and the file), pages, size and
        title; then a line saying how many were shown and whether more follow. Shows the first --limit
        documents (default 100), reading the service's listing page by page; --state asks the service for
        those states only. With --json, one JSON document: {"server", "documents": [{"id", "state",
        "conflict", "why", "title", "pageCount", "size", "etag", "updatedAt"}], "more"}, where "more" says
        whether documents beyond --limit follow.

        Exit codes: 0 success; 64 bad usage (a --limit below 1, an unknown --state); 69 no service at the
        URL (or it failed); 76 the answer is not the service's; 77 the token is missing or wrong.

        USAGE: quire status [--limit <n>] [--state <state> ...] [--server <url>] [--token <token>] [--json]

        OPTIONS:
          --limit <n>             How many documents to show, oldest first (default: 100).
          --state <state>         Show only documents in this state (clean, dirty, conflict, deleted,
                                  damaged); repeat for more.
          --server <url>          The service's URL (default: $QUIRE_SERVER, else http://127.0.0.1:8080).
          --token <token>         The bearer token the service asks of changes (default: $QUIRE_TOKEN).
          --json                  Print JSON instead of text.
          --version               Show the version.
          -h, --help              Show help information.


        """,
        "resolve": """
        OVERVIEW: Resolve a document's conflict in a running service.

        Prints the document's new state and entity tag (nothing is left of it after --close). With --json,
        one JSON document: {"id", "resolution", "state", "etag"} (state and etag null after --close).

        Exit codes: 0 resolved; 64 bad usage (not exactly one of --reload, --save, --close; an invalid id);
        65 the document is not in conflict, or the service refused the resolution; 66 no such document; 69
        no service at the URL (or it failed); 76 the answer is not the service's; 77 the token is missing
        or wrong.

        USAGE: quire resolve <id> --reload|--save|--close [--server <url>] [--token <token>] [--json]

        ARGUMENTS:
          <id>                    The document's id (quire status lists them).

        OPTIONS:
          --reload                Drop the document's edits and read its files again.
          --save                  Write the document's edits over its files (restoring a deleted file).
          --close                 Drop the document from the store (an uploaded file is not restored).
          --server <url>          The service's URL (default: $QUIRE_SERVER, else http://127.0.0.1:8080).
          --token <token>         The bearer token the service asks of changes (default: $QUIRE_TOKEN).
          --json                  Print JSON instead of text.
          --version               Show the version.
          -h, --help              Show help information.


        """,
        "versions": """
        OVERVIEW: List, or restore, the versions a running service kept of a document's files.

        A conflict resolution keeps the side it drops as a conflict version: reload keeps the unsaved
        edits, save the bytes on disk it overwrote. Lists one line per version, oldest first: id, date,
        size, conflict state and file. With --restore, makes that version's bytes the file's content again
        (the document must not be in conflict) and prints the document's new state and entity tag. With
        --json, one JSON document: {"id", "versions": [...]} when listing, {"id", "restored", "state",
        "etag"} after --restore.

        Exit codes: 0 success; 64 bad usage (an invalid id); 65 the service refused the restore (the
        document is in conflict, or changed while restoring: run it again); 66 no such document or version;
        69 no service at the URL (or it failed); 76 the answer is not the service's; 77 the token is
        missing or wrong.

        USAGE: quire versions <id> [--restore <version>] [--server <url>] [--token <token>] [--json]

        ARGUMENTS:
          <id>                    The document's id (quire status lists them).

        OPTIONS:
          --restore <version>     Restore this version (an id from the list).
          --server <url>          The service's URL (default: $QUIRE_SERVER, else http://127.0.0.1:8080).
          --token <token>         The bearer token the service asks of changes (default: $QUIRE_TOKEN).
          --json                  Print JSON instead of text.
          --version               Show the version.
          -h, --help              Show help information.


        """,
        "events": """
        OVERVIEW: Follow the change feed of a running service, one line per event.

        Prints "following events at URL" on standard error once connected, then one line per event on
        standard output: id, time, type (created, changed, moved, deleted, conflict, resolved, saved),
        document and details; with --json, the event's JSON object, one per line. A dropped connection is
        resumed after the last event received (Last-Event-ID), so none is lost; the command gives up after
        10 attempts in a row fail. Runs until SIGINT or SIGTERM, or until --count events.

        Exit codes: 0 success (stopped by a signal or --count); 64 bad usage; 69 no service at the URL, or
        it went away for good; 76 the answer is not the service's; 77 the token is missing or wrong.

        USAGE: quire events [--since <id>] [--count <n>] [--server <url>] [--token <token>] [--json]

        OPTIONS:
          --since <id>            Replay the events after this id from the service's log first (sent as
                                  Last-Event-ID).
          --count <n>             Exit after this many events.
          --server <url>          The service's URL (default: $QUIRE_SERVER, else http://127.0.0.1:8080).
          --token <token>         The bearer token the service asks of changes (default: $QUIRE_TOKEN).
          --json                  Print JSON instead of text.
          --version               Show the version.
          -h, --help              Show help information.


        """,
    ]
}
