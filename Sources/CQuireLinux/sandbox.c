// The PDF worker's sandbox: Landlock (which paths may be read) and a seccomp-BPF filter (which system calls may
// be made). Both restrict the calling process for the rest of its life and every child it could make; both
// need no_new_privs set first (CQuire_setNoNewPrivileges). No dlsym, no libseccomp: raw system calls.
#define _GNU_SOURCE
#include "CQuireLinux.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
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
    // Read-only access beneath each directory that exists (a missing one is skipped).
    for (int index = 0; index < count; index++) {
        int directory = open(readablePaths[index], O_PATH | O_CLOEXEC | O_DIRECTORY);
        if (directory < 0) continue;
        struct path_beneath_attr rule = {.allowed_access = LL_FS_READ_FILE | LL_FS_READ_DIR, .parent_fd = directory};
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

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARGUMENT_LOW(index) (offsetof(struct seccomp_data, args) + 8 * (index))
#else
#define ARGUMENT_LOW(index) (offsetof(struct seccomp_data, args) + 8 * (index) + 4)
#endif
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
    {SYS_rt_sigaction, ALLOW}, {SYS_rt_sigprocmask, ALLOW}, {SYS_rt_sigreturn, ALLOW}, {SYS_sigaltstack, ALLOW},
    {SYS_exit, ALLOW}, {SYS_exit_group, ALLOW}, {SYS_sched_yield, ALLOW}, {SYS_sched_getaffinity, ALLOW},
    {SYS_gettid, ALLOW}, {SYS_getpid, ALLOW}, {SYS_getppid, ALLOW}, {SYS_getuid, ALLOW}, {SYS_geteuid, ALLOW},
    {SYS_getgid, ALLOW}, {SYS_getegid, ALLOW}, {SYS_prlimit64, SELF_OR_ZERO_0}, {SYS_getrusage, ALLOW},
    {SYS_uname, ALLOW}, {SYS_sysinfo, ALLOW}, {SYS_set_tid_address, ALLOW}, {SYS_ppoll, ALLOW},
    // The service's socket (fd 3) and the memfds: requests in, results out.
    {SYS_recvmsg, ALLOW}, {SYS_sendmsg, ALLOW}, {SYS_memfd_create, ALLOW}, {SYS_fcntl, ALLOW},
    {SYS_ftruncate, ALLOW}, {SYS_dup, ALLOW}, {SYS_dup3, ALLOW},
    // Fonts (Landlock decides which paths): read-only opens, directory listing, metadata.
    {SYS_openat, OPEN_FLAGS_2}, {SYS_getdents64, ALLOW}, {SYS_readlinkat, ALLOW}, {SYS_faccessat, ALLOW},
    {SYS_faccessat2, ALLOW}, {SYS_fstatfs, ALLOW}, {SYS_statfs, ALLOW},
    {SYS_clone, THREADS_ONLY}, {SYS_sendto, NO_ADDRESS_4}, {SYS_kill, THIS_PROCESS_0},
    {SYS_tgkill, THIS_PROCESS_0},
#ifdef SYS_open  // the legacy calls x86_64 still has (aarch64 has only the *at forms)
    {SYS_open, OPEN_FLAGS_1}, {SYS_poll, ALLOW}, {SYS_stat, ALLOW}, {SYS_lstat, ALLOW}, {SYS_access, ALLOW}, {SYS_readlink, ALLOW},
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
#define MAXIMUM_PROGRAM (8 + TABLE_COUNT * 7)

#define STATEMENT(code, k) ((struct sock_filter)BPF_STMT((code), (k)))
#define JUMP(code, k, yes, no) ((struct sock_filter)BPF_JUMP((code), (k), (yes), (no)))
#define RETURN(action) STATEMENT(BPF_RET | BPF_K, (action))
#define LOAD(offset) STATEMENT(BPF_LD | BPF_W | BPF_ABS, (offset))

/// Appends the instructions for one table entry: "if nr == number { …return… }" (the accumulator holds nr).
static size_t append(struct sock_filter *program, size_t at, struct entry entry, uint32_t self) {
    struct sock_filter body[6];
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

int CQuire_installSyscallFilter(void) {
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
    for (size_t index = 0; index < TABLE_COUNT; index++) length = append(program, length, table[index], self);
    program[length++] = RETURN(SECCOMP_RET_ERRNO | ENOSYS);
    struct sock_fprog filter = {.len = (unsigned short)length, .filter = program};
    // TSYNC: every thread of the process gets the filter, not only the caller.
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &filter);
}
