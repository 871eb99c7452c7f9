// The PDF worker's sandbox: Landlock (which paths may be read) and a seccomp-BPF filter (which system calls may
// be made). Both restrict the calling process for the rest of its life and every child it could make; both
// need no_new_privs set first (CQuire_setNoNewPrivileges). No dlsym, no libseccomp: raw system calls.
#define _GNU_SOURCE
#include "CQuireLinux.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <ucontext.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// MARK: - Landlock

// The kernel's Landlock ABI, written out here: Debian 12's headers (Linux 6.1) stop at ABI 2.
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
// Filesystem rights, with the ABI version that introduced them.
#define LL_FS_EXECUTE (1ULL << 0)  // ABI 1: bits 0-12
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_ABI1 ((1ULL << 13) - 1)
#define LL_FS_REFER (1ULL << 13)      // ABI 2
#define LL_FS_TRUNCATE (1ULL << 14)   // ABI 3
#define LL_FS_IOCTL_DEV (1ULL << 15)  // ABI 5
// Network rights (ABI 4) and scopes (ABI 6).
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

/// struct landlock_ruleset_attr as of ABI 6; the size passed to the kernel is that of the fields it knows.
struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;  // ABI 4
    uint64_t scoped;              // ABI 6
};

/// struct landlock_path_beneath_attr (packed, as the kernel defines it).
struct path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

int CQuire_landlockABI(void) {
    return (int)syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
}

int CQuire_restrictFileSystem(const char *const *readablePaths, int count) {
    int abi = CQuire_landlockABI();
    if (abi < 1) return -1;  // ENOSYS (not built in) or EOPNOTSUPP (not enabled at boot)
    // Handle every right this ABI knows, so that each one is denied unless a rule below grants it.
    struct ruleset_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = LL_FS_ABI1;
    if (abi >= 2) attr.handled_access_fs |= LL_FS_REFER;
    if (abi >= 3) attr.handled_access_fs |= LL_FS_TRUNCATE;
    if (abi >= 5) attr.handled_access_fs |= LL_FS_IOCTL_DEV;
    size_t size = offsetof(struct ruleset_attr, handled_access_net);
    if (abi >= 4) {
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;  // no rule: no TCP bind or connect
        size = offsetof(struct ruleset_attr, scoped);
    }
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;  // nothing outside the sandbox
        size = sizeof attr;
    }
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) return -1;
    // Read-only access beneath each directory, or to each file, that exists (a missing one is skipped).
    for (int index = 0; index < count; index++) {
        int directory = open(readablePaths[index], O_PATH | O_CLOEXEC);
        if (directory < 0) continue;
        struct stat status;
        if (fstat(directory, &status) != 0) {
            close(directory);
            continue;
        }
        uint64_t rights = S_ISDIR(status.st_mode) ? (LL_FS_READ_FILE | LL_FS_READ_DIR) : LL_FS_READ_FILE;
        struct path_beneath_attr rule = {.allowed_access = rights, .parent_fd = directory};
        long added = syscall(__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0);
        int saved = errno;
        close(directory);
        if (added != 0) {
            close(ruleset);
            errno = saved;
            return -1;
        }
    }
    long restricted = syscall(__NR_landlock_restrict_self, ruleset, 0);
    int saved = errno;
    close(ruleset);
    if (restricted != 0) {
        errno = saved;
        return -1;
    }
    return abi;
}

// MARK: - seccomp

#if defined(__x86_64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "the worker sandbox knows the system calls of x86_64 and aarch64 only"
#endif

// The offset of the low 32 bits of the 64-bit field at `offset` (and, `^ 4`, of its high 32 bits).
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define POINTER_LOW(offset) (offset)
#else
#define POINTER_LOW(offset) ((offset) + 4)
#endif
#define ARGUMENT_LOW(index) POINTER_LOW(offsetof(struct seccomp_data, args) + 8 * (index))
#define ARGUMENT_HIGH(index) (ARGUMENT_LOW(index) ^ 4)

/// What the filter does with one system call.
enum rule {
    ALLOW,               // allowed
    KILL,                // the process is killed (SIGSYS)
    OPEN_FLAGS_1,        // allowed when argument 1 (open's flags) asks for no write, creation or truncation; else KILL
    OPEN_FLAGS_2,        // the same for argument 2 (openat's flags)
    THREADS_ONLY,        // clone: allowed with CLONE_THREAD (a thread), else KILL (a new process)
    NO_ADDRESS_4,        // sendto: allowed when argument 4 (the address) is NULL, else KILL
    THIS_PROCESS_0,      // kill, tgkill: allowed when argument 0 is this process, else ENOSYS
    SELF_OR_ZERO_0,      // prlimit64: allowed when argument 0 is 0 or this process (not the service), else ENOSYS
    BROKERED_OPEN_1,     // open: made from the broker's instruction, as OPEN_FLAGS_1; from anywhere else, TRAP
    BROKERED_OPEN_2,     // openat: the same with OPEN_FLAGS_2
    GUARD_SIGSYS_0,      // rt_sigaction: killed when it would change SIGSYS (the broker's signal), else allowed
};

/// The open flags that write, create or truncate.
#define WRITING_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

struct entry {
    int number;
    enum rule rule;
};

/// The system calls the worker may make once sandboxed, then those that kill it; every other call fails with
/// ENOSYS. Measured with `strace -f` on every worker of the DocumentStore and quire tests (renders, text and
/// checks of the fixtures, encrypted ones with passwords): openat, close, read, pread64, write, lseek,
/// newfstatat, brk, mmap, munmap, mprotect, futex, fcntl, recvmsg, sendmsg, memfd_create, exit_group. The rest
/// of the allowed calls are those glibc and the Swift runtime make on paths the fixtures did not take (thread
/// start, abort, clocks, random numbers, limits): harmless, and a healthy worker must not die on them.
static const struct entry table[] = {
    // Memory, threads, time, signals: what glibc, the Swift runtime, GLib, poppler and cairo use.
    {SYS_read, ALLOW}, {SYS_write, ALLOW}, {SYS_pread64, ALLOW}, {SYS_readv, ALLOW}, {SYS_writev, ALLOW},
    {SYS_close, ALLOW}, {SYS_lseek, ALLOW}, {SYS_fstat, ALLOW}, {SYS_newfstatat, ALLOW}, {SYS_statx, ALLOW},
    {SYS_mmap, ALLOW}, {SYS_munmap, ALLOW}, {SYS_mremap, ALLOW}, {SYS_mprotect, ALLOW}, {SYS_madvise, ALLOW},
    {SYS_brk, ALLOW}, {SYS_futex, ALLOW}, {SYS_set_robust_list, ALLOW}, {SYS_rseq, ALLOW},
    {SYS_getrandom, ALLOW}, {SYS_clock_gettime, ALLOW}, {SYS_clock_getres, ALLOW},
    {SYS_clock_nanosleep, ALLOW}, {SYS_nanosleep, ALLOW}, {SYS_gettimeofday, ALLOW},
    {SYS_rt_sigaction, GUARD_SIGSYS_0}, {SYS_rt_sigprocmask, ALLOW}, {SYS_rt_sigreturn, ALLOW}, {SYS_sigaltstack, ALLOW},
    {SYS_exit, ALLOW}, {SYS_exit_group, ALLOW}, {SYS_sched_yield, ALLOW}, {SYS_sched_getaffinity, ALLOW},
    {SYS_gettid, ALLOW}, {SYS_getpid, ALLOW}, {SYS_getppid, ALLOW}, {SYS_getuid, ALLOW}, {SYS_geteuid, ALLOW},
    {SYS_getgid, ALLOW}, {SYS_getegid, ALLOW}, {SYS_prlimit64, SELF_OR_ZERO_0}, {SYS_getrusage, ALLOW},
    {SYS_uname, ALLOW}, {SYS_sysinfo, ALLOW}, {SYS_set_tid_address, ALLOW}, {SYS_ppoll, ALLOW},
    // The service's socket (fd 3) and the memfds: requests in, results out.
    {SYS_recvmsg, ALLOW}, {SYS_sendmsg, ALLOW}, {SYS_memfd_create, ALLOW}, {SYS_fcntl, ALLOW},
    {SYS_ftruncate, ALLOW}, {SYS_dup, ALLOW}, {SYS_dup3, ALLOW},
    // Fonts (Landlock decides which paths): read-only opens, directory listing, metadata.
    {SYS_openat, BROKERED_OPEN_2}, {SYS_getdents64, ALLOW}, {SYS_readlinkat, ALLOW}, {SYS_faccessat, ALLOW},
    {SYS_faccessat2, ALLOW}, {SYS_fstatfs, ALLOW}, {SYS_statfs, ALLOW},
    {SYS_clone, THREADS_ONLY}, {SYS_sendto, NO_ADDRESS_4}, {SYS_kill, THIS_PROCESS_0},
    {SYS_tgkill, THIS_PROCESS_0},
#ifdef SYS_open  // the legacy calls x86_64 still has (aarch64 has only the *at forms)
    {SYS_open, BROKERED_OPEN_1}, {SYS_poll, ALLOW}, {SYS_stat, ALLOW}, {SYS_lstat, ALLOW}, {SYS_access, ALLOW}, {SYS_readlink, ALLOW},
    {SYS_creat, KILL}, {SYS_fork, KILL}, {SYS_vfork, KILL}, {SYS_rename, KILL}, {SYS_unlink, KILL},
    {SYS_rmdir, KILL}, {SYS_mkdir, KILL}, {SYS_link, KILL}, {SYS_symlink, KILL}, {SYS_chmod, KILL},
    {SYS_chown, KILL}, {SYS_lchown, KILL}, {SYS_mknod, KILL},
#endif
    // Killed: new processes and programs, networking, other processes' memory, the file system's shape,
    // namespaces, the kernel's own state, and io_uring (which would run calls past this filter).
    {SYS_execve, KILL}, {SYS_execveat, KILL}, {SYS_socket, KILL}, {SYS_socketpair, KILL}, {SYS_connect, KILL},
    {SYS_bind, KILL}, {SYS_listen, KILL}, {SYS_accept, KILL}, {SYS_accept4, KILL}, {SYS_openat2, KILL},
    {SYS_open_by_handle_at, KILL}, {SYS_ptrace, KILL}, {SYS_process_vm_readv, KILL},
    {SYS_process_vm_writev, KILL}, {SYS_pidfd_getfd, KILL}, {SYS_mount, KILL}, {SYS_umount2, KILL},
    {SYS_chroot, KILL}, {SYS_pivot_root, KILL}, {SYS_unshare, KILL}, {SYS_setns, KILL}, {SYS_kexec_load, KILL},
    {SYS_kexec_file_load, KILL}, {SYS_init_module, KILL}, {SYS_finit_module, KILL}, {SYS_delete_module, KILL},
    {SYS_bpf, KILL}, {SYS_perf_event_open, KILL}, {SYS_keyctl, KILL}, {SYS_add_key, KILL},
    {SYS_request_key, KILL}, {SYS_userfaultfd, KILL}, {SYS_io_uring_setup, KILL}, {SYS_renameat, KILL},
    {SYS_renameat2, KILL}, {SYS_unlinkat, KILL}, {SYS_mkdirat, KILL}, {SYS_linkat, KILL}, {SYS_symlinkat, KILL},
    {SYS_mknodat, KILL}, {SYS_fchmod, KILL}, {SYS_fchmodat, KILL}, {SYS_fchown, KILL}, {SYS_fchownat, KILL},
    {SYS_truncate, KILL},
};

#define TABLE_COUNT (sizeof table / sizeof table[0])
#define MAXIMUM_PROGRAM (8 + TABLE_COUNT * 11)

#define STATEMENT(code, k) ((struct sock_filter)BPF_STMT((code), (k)))
#define JUMP(code, k, yes, no) ((struct sock_filter)BPF_JUMP((code), (k), (yes), (no)))
#define RETURN(action) STATEMENT(BPF_RET | BPF_K, (action))
#define LOAD(offset) STATEMENT(BPF_LD | BPF_W | BPF_ABS, (offset))

/// Appends the instructions for one table entry: "if nr == number { …return… }" (the accumulator holds nr).
static size_t append(struct sock_filter *program, size_t at, struct entry entry, uint32_t self,
                     uint64_t brokerAddress) {
    struct sock_filter body[10];
    size_t length = 0;
    switch (entry.rule) {
    case ALLOW: body[length++] = RETURN(SECCOMP_RET_ALLOW); break;
    case KILL: body[length++] = RETURN(SECCOMP_RET_KILL_PROCESS); break;
    case OPEN_FLAGS_1:
    case OPEN_FLAGS_2:
        body[length++] = LOAD(ARGUMENT_LOW(entry.rule == OPEN_FLAGS_1 ? 1 : 2));
        body[length++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, WRITING_FLAGS, 1, 0);
        body[length++] = RETURN(SECCOMP_RET_ALLOW);
        body[length++] = RETURN(SECCOMP_RET_KILL_PROCESS);
        break;
    case THREADS_ONLY:
        body[length++] = LOAD(ARGUMENT_LOW(0));
        body[length++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
        body[length++] = RETURN(SECCOMP_RET_ALLOW);
        body[length++] = RETURN(SECCOMP_RET_KILL_PROCESS);
        break;
    case NO_ADDRESS_4:
        body[length++] = LOAD(ARGUMENT_LOW(4));
        body[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2);
        body[length++] = LOAD(ARGUMENT_HIGH(4));
        body[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
        body[length++] = RETURN(SECCOMP_RET_ALLOW);
        body[length++] = RETURN(SECCOMP_RET_KILL_PROCESS);
        break;
    case THIS_PROCESS_0:
        body[length++] = LOAD(ARGUMENT_LOW(0));
        body[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 0, 1);
        body[length++] = RETURN(SECCOMP_RET_ALLOW);
        body[length++] = RETURN(SECCOMP_RET_ERRNO | ENOSYS);
        break;
    case BROKERED_OPEN_1:
    case BROKERED_OPEN_2:
        // From the broker's instruction: the flags check of OPEN_FLAGS_*; from anywhere else: trap to the broker.
        body[length++] = LOAD(POINTER_LOW(offsetof(struct seccomp_data, instruction_pointer)));
        body[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)brokerAddress, 0, 4);
        body[length++] = LOAD(POINTER_LOW(offsetof(struct seccomp_data, instruction_pointer)) ^ 4);
        body[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(brokerAddress >> 32), 0, 2);
        body[length++] = LOAD(ARGUMENT_LOW(entry.rule == BROKERED_OPEN_1 ? 1 : 2));
        body[length++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, WRITING_FLAGS, 1, 2);
        body[length++] = RETURN(SECCOMP_RET_TRAP);
        body[length++] = RETURN(SECCOMP_RET_KILL_PROCESS);
        body[length++] = RETURN(SECCOMP_RET_ALLOW);
        break;
    case GUARD_SIGSYS_0:
        // rt_sigaction(SIGSYS, act, …) with an act: would take SIGSYS from the broker.
        body[length++] = LOAD(ARGUMENT_LOW(0));
        body[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGSYS, 0, 4);
        body[length++] = LOAD(ARGUMENT_LOW(1));
        body[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3);
        body[length++] = LOAD(ARGUMENT_HIGH(1));
        body[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
        body[length++] = RETURN(SECCOMP_RET_ALLOW);
        body[length++] = RETURN(SECCOMP_RET_KILL_PROCESS);
        break;
    case SELF_OR_ZERO_0:
        body[length++] = LOAD(ARGUMENT_LOW(0));
        body[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);
        body[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 0, 1);
        body[length++] = RETURN(SECCOMP_RET_ALLOW);
        body[length++] = RETURN(SECCOMP_RET_ERRNO | ENOSYS);
        break;
    }
    program[at++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)entry.number, 0, (uint8_t)length);
    memcpy(&program[at], body, length * sizeof body[0]);
    return at + length;
}

// MARK: - The open broker

// Every open the worker makes once sandboxed (poppler's fonts, glibc's iconv modules, or anything else) traps
// (SECCOMP_RET_TRAP: SIGSYS) unless it comes from one instruction: the `syscall` of CQuire_brokerSystemCall below. The
// SIGSYS handler reads the path and flags from the trapped call's registers; a read-only open of an absolute
// path beneath one of the readable directories, with no "." or ".." component, is made again from that
// instruction and its result put where the trapped call's result goes; any other open ends the process by a call
// the filter kills for (so it ends by SIGSYS, like every other forbidden act). The check reads the path once,
// lexically; Landlock (when the kernel has it) then decides on the real file, symbolic links included.

/// long CQuire_brokerSystemCall(long number, long a0, long a1, long a2, long a3): the system call `number` with those
/// arguments, returning the kernel's raw result (-errno on failure). CQuire_brokerReturn is the address the kernel
/// reports as the call's instruction pointer (the instruction after `syscall` / `svc`).
__attribute__((visibility("hidden"))) long CQuire_brokerSystemCall(long number, long a0, long a1, long a2, long a3);
__attribute__((visibility("hidden"))) extern const char CQuire_brokerReturn[];
#if defined(__x86_64__)
__asm__(".text\n"
        ".p2align 4\n"
        ".globl CQuire_brokerSystemCall\n"
        ".hidden CQuire_brokerSystemCall\n"
        ".globl CQuire_brokerReturn\n"
        ".hidden CQuire_brokerReturn\n"
        ".type CQuire_brokerSystemCall,@function\n"
        "CQuire_brokerSystemCall:\n"
        "    movq %rdi, %rax\n"
        "    movq %rsi, %rdi\n"
        "    movq %rdx, %rsi\n"
        "    movq %rcx, %rdx\n"
        "    movq %r8, %r10\n"
        "    syscall\n"
        "CQuire_brokerReturn:\n"
        "    ret\n"
        ".size CQuire_brokerSystemCall, .-CQuire_brokerSystemCall\n");
#elif defined(__aarch64__)
__asm__(".text\n"
        ".p2align 4\n"
        ".globl CQuire_brokerSystemCall\n"
        ".hidden CQuire_brokerSystemCall\n"
        ".globl CQuire_brokerReturn\n"
        ".hidden CQuire_brokerReturn\n"
        ".type CQuire_brokerSystemCall,%function\n"
        "CQuire_brokerSystemCall:\n"
        "    mov x8, x0\n"
        "    mov x0, x1\n"
        "    mov x1, x2\n"
        "    mov x2, x3\n"
        "    mov x3, x4\n"
        "    svc #0\n"
        "CQuire_brokerReturn:\n"
        "    ret\n"
        ".size CQuire_brokerSystemCall, .-CQuire_brokerSystemCall\n");
#endif

/// The directories beneath which the broker lets a read-only open through (copied at installation).
#define BROKER_MAXIMUM_DIRECTORIES 16
#define BROKER_MAXIMUM_PATH 4096
static char brokerDirectories[BROKER_MAXIMUM_DIRECTORIES][256];
static size_t brokerDirectoryLengths[BROKER_MAXIMUM_DIRECTORIES];
static int brokerDirectoryCount;

/// Whether `path` (at most BROKER_MAXIMUM_PATH bytes before its NUL) is absolute, has no "." or ".." component
/// and lies beneath one of the broker's directories. Async-signal-safe: reads memory, calls nothing.
static int brokerAllows(const char *path) {
    if (path == NULL || path[0] != '/') return 0;
    size_t length = 0;
    while (path[length] != 0) {
        if (++length > BROKER_MAXIMUM_PATH) return 0;
    }
    for (size_t start = 0; start < length;) {
        size_t end = start;
        while (end < length && path[end] != '/') end++;
        size_t component = end - start;
        if ((component == 1 && path[start] == '.') || (component == 2 && path[start] == '.' && path[start + 1] == '.'))
            return 0;
        start = end + 1;
    }
    for (int index = 0; index < brokerDirectoryCount; index++) {
        size_t prefix = brokerDirectoryLengths[index];
        if (length < prefix) continue;
        int same = 1;
        for (size_t at = 0; at < prefix && same; at++) same = path[at] == brokerDirectories[index][at];
        if (same && (length == prefix || path[prefix] == '/')) return 1;
    }
    return 0;
}

/// Writes one line on standard error naming the refused open (printable ASCII only, at most 200 bytes of its path).
static void brokerReport(const char *path, int writing) {
    static const char head[] = "quire-pdf worker: sandbox: ending the process for an open ";
    static const char forWriting[] = "for writing: ";
    static const char outside[] = "outside the readable directories: ";
    char line[sizeof head + sizeof outside + 204];
    size_t length = 0;
    for (size_t at = 0; at + 1 < sizeof head; at++) line[length++] = head[at];
    const char *reason = writing ? forWriting : outside;
    for (size_t at = 0; reason[at] != 0; at++) line[length++] = reason[at];
    for (size_t at = 0; path != NULL && path[at] != 0 && at < 200; at++)
        line[length++] = (path[at] >= 0x20 && path[at] < 0x7f) ? path[at] : '?';
    line[length++] = '\n';
    CQuire_brokerSystemCall(SYS_write, 2, (long)line, (long)length, 0);
}

static void brokerHandle(int signal, siginfo_t *information, void *context) {
    (void)signal;
    ucontext_t *machine = context;
#if defined(__x86_64__)
    greg_t *registers = machine->uc_mcontext.gregs;
    long arguments[4] = {registers[REG_RDI], registers[REG_RSI], registers[REG_RDX], registers[REG_R10]};
#else
    unsigned long long *registers = machine->uc_mcontext.regs;
    long arguments[4] = {(long)registers[0], (long)registers[1], (long)registers[2], (long)registers[3]};
#endif
    int number = information->si_syscall;
    const char *path = NULL;
    long flags = 0;
    long result = -ENOSYS;
    if (number == SYS_openat) {
        path = (const char *)arguments[1];
        flags = arguments[2];
    }
#ifdef SYS_open
    else if (number == SYS_open) {
        path = (const char *)arguments[0];
        flags = arguments[1];
    }
#endif
    if (path != NULL && (flags & WRITING_FLAGS) == 0 && brokerAllows(path)) {
        // An absolute path: openat's directory descriptor does not matter.
        result = CQuire_brokerSystemCall(SYS_openat, AT_FDCWD, (long)path, flags, arguments[number == SYS_openat ? 3 : 2]);
    } else {
        brokerReport(path, (flags & WRITING_FLAGS) != 0);
        CQuire_brokerSystemCall(SYS_socket, AF_UNIX, SOCK_STREAM, 0, 0);  // killed by the filter: SIGSYS
        CQuire_brokerSystemCall(SYS_exit_group, 159, 0, 0, 0);             // not reached
    }
#if defined(__x86_64__)
    registers[REG_RAX] = result;
#else
    registers[0] = (unsigned long long)result;
#endif
}

/// Copies the broker's directories and installs its SIGSYS handler (before the filter that sends it SIGSYS).
static int brokerInstall(const char *const *readablePaths, int count) {
    brokerDirectoryCount = 0;
    for (int index = 0; index < count && brokerDirectoryCount < BROKER_MAXIMUM_DIRECTORIES; index++) {
        size_t length = strlen(readablePaths[index]);
        while (length > 1 && readablePaths[index][length - 1] == '/') length--;
        if (length == 0 || length >= sizeof brokerDirectories[0] || readablePaths[index][0] != '/') continue;
        memcpy(brokerDirectories[brokerDirectoryCount], readablePaths[index], length);
        brokerDirectories[brokerDirectoryCount][length] = 0;
        brokerDirectoryLengths[brokerDirectoryCount] = length;
        brokerDirectoryCount++;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = brokerHandle;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    return sigaction(SIGSYS, &action, NULL);
}

int CQuire_installSyscallFilter(const char *const *readablePaths, int count) {
    if (brokerInstall(readablePaths, count) != 0) return -1;
    uint64_t brokerAddress = (uint64_t)(uintptr_t)CQuire_brokerReturn;
    static struct sock_filter program[MAXIMUM_PROGRAM];
    size_t length = 0;
    // A call made with another architecture's numbers (i386 through int 0x80, say) kills the process.
    program[length++] = LOAD(offsetof(struct seccomp_data, arch));
    program[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_AUDIT_ARCH, 1, 0);
    program[length++] = RETURN(SECCOMP_RET_KILL_PROCESS);
    program[length++] = LOAD(offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
    // x32 calls carry the same AUDIT_ARCH with bit 30 set in their number: kill them too.
    program[length++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
    program[length++] = RETURN(SECCOMP_RET_KILL_PROCESS);
#endif
    uint32_t self = (uint32_t)getpid();
    for (size_t index = 0; index < TABLE_COUNT; index++) length = append(program, length, table[index], self, brokerAddress);
    program[length++] = RETURN(SECCOMP_RET_ERRNO | ENOSYS);
    struct sock_fprog filter = {.len = (unsigned short)length, .filter = program};
    // TSYNC: every thread of the process gets the filter, not only the caller.
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &filter);
}
