import Testing

/// The --help of each coordination command, pinned like `inspect --help` in HelpTests.
@Suite("quire coordination commands --help")
struct CoordinationHelpTests {
    @Test("each coordination command's --help is pinned", arguments: Array(pinned.keys).sorted())
    func help(_ command: String) throws {
        let result = try QuireProcess.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.output == Self.pinned[command])
    }

    static let pinned: [String: String] = [
        "coordinator": """
            OVERVIEW: Host the shared file-coordination arbiter in the foreground until SIGINT or SIGTERM.

            Any process that coordinates hosts the arbiter when nobody does; run this for a dedicated one. It
            serves the directory in QUIRE_COORDINATION_DIR (default $XDG_RUNTIME_DIR/quire, else
            /tmp/quire-<uid>) and prints "hosting the shared arbiter at SOCKET (pid N)" on standard error when
            clients can connect. Started by systemd's quire-coordinator.socket (LISTEN_FDS, LISTEN_PID), it
            serves the Unix socket handed over, which must be bound to that directory's arbiter.sock, and
            leaves it in place when it stops. Under systemd (Type=notify) it sends READY=1 once clients can
            connect and STOPPING=1 as it stops.

            Exit codes: 0 stopped by SIGINT or SIGTERM; 69 another process hosts it already, or the directory
            or socket is unsafe or cannot be made; 78 the socket handed over cannot be served, or NOTIFY_SOCKET
            or WATCHDOG_USEC cannot be used (one line says why).

            USAGE: quire coordinator

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.


            """,
        "watch": """
            OVERVIEW: Print every presenter message about files, whether the change was coordinated or not.

            Registers one presenter per FILE (changes made without coordination are reported too), prints
            "watching N item(s)" on standard error once they are registered, then one line per message on
            standard output: time, callback (relinquishToReader, relinquishToWriter, reacquire,
            savePresentedItemChanges, accommodatePresentedItemDeletion, presentedItemDidMove,
            presentedItemDidChange, and the presentedSubitem… ones) and path. Every message is answered at
            once. Runs until SIGINT or SIGTERM, or until --count messages.

            Exit codes: 0 success (stopped by a signal or --count); 64 bad usage; 69 the shared coordination
            arbiter is unavailable.

            USAGE: quire watch <file> ... [--count <n>] [--json]

            ARGUMENTS:
              <file>                  The files or directories to watch.

            OPTIONS:
              --count <n>             Exit after this many messages.
              --json                  Print one JSON object per line instead of text.
              --version               Show the version.
              -h, --help              Show help information.


            """,
        "read": """
            OVERVIEW: Print a file's bytes, read in coordination with the programs that present or write it.

            Waits for writers, asks presenters in other processes to save their changes first, then copies the
            file to standard output.

            Exit codes: 0 success; 64 bad usage; 66 an input is missing or unreadable; 69 the shared
            coordination arbiter is unavailable; 73 an output cannot be created; 74 input/output error; 75
            timed out waiting for access, or a presenter refused (try again); 77 permission denied.

            USAGE: quire read <file>

            ARGUMENTS:
              <file>                  The file to read.

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.


            """,
        "write": """
            OVERVIEW: Replace a file's contents atomically, in coordination with its presenters and readers.

            Reads the new bytes first (standard input, or --from) into a temporary file in the same directory,
            then, holding coordinated write access, renames it over FILE: readers see the old or the new
            contents, never a mix, and presenters are told of the change. The file keeps its permission bits.

            Exit codes: 0 success; 64 bad usage; 66 an input is missing or unreadable; 69 the shared
            coordination arbiter is unavailable; 73 an output cannot be created; 74 input/output error; 75
            timed out waiting for access, or a presenter refused (try again); 77 permission denied.

            USAGE: quire write <file> [--from <path>]

            ARGUMENTS:
              <file>                  The file to replace (created if missing).

            OPTIONS:
              --from <path>           Read the new contents from this file instead of standard input.
              --version               Show the version.
              -h, --help              Show help information.


            """,
        "exec": """
            OVERVIEW: Run a command while holding coordinated read or write access to files, like flock(1).

            All FILEs are acquired in one coordinated access (presenters relinquish, save or are told of the
            change as for any coordinated access); CMD runs with this process's standard streams, an empty
            signal mask and default signal handlers; the access ends when CMD exits. SIGTERM and SIGHUP are
            passed on to CMD; SIGINT and SIGQUIT are left to CMD.

            Exit codes: CMD's exit status, or 128 plus the signal that killed it; 126 CMD cannot be executed;
            127 CMD not found; 75 timed out waiting for access (--timeout), or a presenter refused; 64 bad
            usage; 69 the shared coordination arbiter is unavailable; 77 permission denied.

            USAGE: quire exec (--read|--write) [--timeout <seconds>] <file>... -- <command> [<argument>...]

            ARGUMENTS:
              <file... -- command>    The files to hold, then --, then the command to run and its arguments.

            OPTIONS:
              --read                  Hold coordinated read access (shared with other readers).
              --write                 Hold coordinated write access (exclusive).
              --timeout <seconds>     Give up after waiting this many seconds for access (default: wait).
              --version               Show the version.
              -h, --help              Show help information.


            """,
        "mv": """
            OVERVIEW: Move or rename a file or directory in coordination; its presenters follow it.

            Holds SRC for moving and DST for replacing in one coordinated access, then renames. If DST is a
            directory, SRC moves into it. Both must be on the same file system.

            Exit codes: 0 success; 64 bad usage; 66 an input is missing or unreadable; 69 the shared
            coordination arbiter is unavailable; 73 an output cannot be created; 74 input/output error; 75
            timed out waiting for access, or a presenter refused (try again); 77 permission denied.

            USAGE: quire mv <source> <destination>

            ARGUMENTS:
              <source>                The file or directory to move.
              <destination>           Its new path, or a directory to move it into.

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.


            """,
        "rm": """
            OVERVIEW: Delete a file (or, with -r, a directory) in coordination; its presenters let go first.

            Without -r, a directory is refused (bad usage, 64).

            Exit codes: 0 success; 64 bad usage; 66 an input is missing or unreadable; 69 the shared
            coordination arbiter is unavailable; 73 an output cannot be created; 74 input/output error; 75
            timed out waiting for access, or a presenter refused (try again); 77 permission denied.

            USAGE: quire rm <file> [--recursive]

            ARGUMENTS:
              <file>                  The file or directory to delete.

            OPTIONS:
              -r, --recursive         Delete a directory and everything in it.
              --version               Show the version.
              -h, --help              Show help information.


            """,
        "presenters": """
            OVERVIEW: List the registered file presenters: process, command line, presented item.

            Asks the shared coordination arbiter (or, with QUIRE_COORDINATION_SCOPE=process, this process) and
            does not start it: when no process hosts it, there is nothing to list.

            Exit codes: 0 success; 69 the shared coordination arbiter does not answer.

            USAGE: quire presenters [--json]

            OPTIONS:
              --json                  Print one JSON document instead of a table.
              --version               Show the version.
              -h, --help              Show help information.


            """,
        "claims": """
            OVERVIEW: List held and waiting coordinated accesses per path, and who blocks whom.

            For each claimed path: its holders, then its waiters in arrival order, each with process id and
            command line, read or write and options, state (holding, asking-presenters, waiting), age and the
            accesses it waits for. Does not start the shared arbiter.

            Exit codes: 0 success; 69 the shared coordination arbiter does not answer.

            USAGE: quire claims [--json]

            OPTIONS:
              --json                  Print one JSON document instead of a table.
              --version               Show the version.
              -h, --help              Show help information.


            """,
    ]
}
