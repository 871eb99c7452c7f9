// The Linux- and glibc-only system calls Quire needs, which Swift's Glibc module does not export (GNU
// extensions, or calls glibc 2.36 has no wrapper for). Like swift-nio's CNIOLinux: one small C boundary, each
// function a thin wrapper that returns -1 and sets errno as the call does. Nothing here retries EINTR.
#ifndef C_QUIRE_LINUX_H
#define C_QUIRE_LINUX_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <spawn.h>

/// RESOLVE_* flags of openat2(2) (linux/openat2.h).
#define CQUIRE_RESOLVE_NO_XDEV 0x01
#define CQUIRE_RESOLVE_NO_MAGICLINKS 0x02
#define CQUIRE_RESOLVE_NO_SYMLINKS 0x04
#define CQUIRE_RESOLVE_BENEATH 0x08
#define CQUIRE_RESOLVE_IN_ROOT 0x10

/// O_PATH, O_NOFOLLOW, O_DIRECTORY and O_NOCTTY as this platform defines them (not all are visible to Swift).
extern const int CQuire_O_PATH;
extern const int CQuire_O_NOFOLLOW;
extern const int CQuire_O_DIRECTORY;
extern const int CQuire_O_NOCTTY;

/// openat2(2): opens `path` relative to `dirfd` with `flags` and `mode`, resolving it under `resolve`.
/// Returns the descriptor, or -1 with errno (ENOSYS on kernels before 5.6).
int CQuire_openat2(int dirfd, const char *path, int flags, mode_t mode, uint64_t resolve);

/// accept4(2).
int CQuire_accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

/// pipe2(2).
int CQuire_pipe2(int fds[2], int flags);

/// mkostemps(3): creates and opens a new file from `template` (its last six characters before `suffixlen` more
/// are XXXXXX, replaced in place) with the extra open `flags` (O_CLOEXEC), mode 0600.
int CQuire_mkostemps(char *template, int suffixlen, int flags);

/// getsockopt(SO_PEERCRED): the process, user and group at the other end of a Unix socket.
int CQuire_peerCredentials(int sockfd, pid_t *pid, uid_t *uid, gid_t *gid);

/// sendmsg(2) of `length` bytes with one descriptor attached (SCM_RIGHTS); `descriptor` < 0 sends none.
/// Returns the bytes sent or -1.
ssize_t CQuire_sendWithDescriptor(int socket, const void *bytes, size_t length, int descriptor);

/// recvmsg(2) of at most `length` bytes, taking at most one attached descriptor into `*descriptor` (-1 when
/// none came; more than one, a truncated control message or a packet longer than `length` closes them all and
/// fails with EBADMSG).
ssize_t CQuire_receiveWithDescriptor(int socket, void *bytes, size_t length, int *descriptor);

/// The identity (device and inode) of a memfd whose content can no longer change (sealed against writing,
/// shrinking and growing): 0 and the identity, or -1 when it is not such a file.
int CQuire_sealedIdentity(int descriptor, uint64_t *device, uint64_t *inode);

/// setxattr(2) of `size` bytes at `value` (no flags): 0, or -1 and errno. Glibc's Swift module does not export
/// <sys/xattr.h>.
int CQuire_setExtendedAttribute(const char *path, const char *name, const void *value, size_t size);

/// getxattr(2) of at most `size` bytes into `value`: the attribute's length, or -1 and errno (ENODATA when the
/// item has no such attribute, ENOTSUP when its file system keeps none).
ssize_t CQuire_getExtendedAttribute(const char *path, const char *name, void *value, size_t size);

/// setxattr(2) with XATTR_CREATE: 0, or -1 and errno (EEXIST when the item already has the attribute).
int CQuire_createExtendedAttribute(const char *path, const char *name, const void *value, size_t size);

/// statx(2) of `path` (symbolic links followed): its device, inode and birth time (0 and 0 where the file
/// system records none). 0, or -1 and errno.
int CQuire_birthIdentity(const char *path, uint64_t *device, uint64_t *inode, int64_t *birthSeconds,
                         uint32_t *birthNanoseconds);

/// The most descriptors one message carries.
#define CQUIRE_MAXIMUM_DESCRIPTORS 4

/// sendmsg(2) of `length` bytes with `count` descriptors attached (SCM_RIGHTS; 0 to
/// CQUIRE_MAXIMUM_DESCRIPTORS). Returns the bytes sent or -1.
ssize_t CQuire_sendWithDescriptors(int socket, const void *bytes, size_t length, const int *descriptors, int count);

/// recvmsg(2) of at most `length` bytes, taking at most `capacity` attached descriptors into `descriptors` and
/// their number into `*count`; more than `capacity`, a truncated control message or a packet longer than
/// `length` closes them all and fails with EBADMSG.
ssize_t CQuire_receiveWithDescriptors(int socket, void *bytes, size_t length, int *descriptors, int capacity,
                                      int *count);

/// memfd_create(2) with MFD_CLOEXEC | MFD_ALLOW_SEALING: a new, empty memory file. Returns the descriptor, or -1
/// with errno.
int CQuire_memfdCreate(const char *name);

/// fcntl(F_ADD_SEALS) with every seal (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL): the memfd's content
/// can no longer change. Returns 0, or -1 with errno.
int CQuire_sealCompletely(int descriptor);

/// The size of the regular file open as `descriptor`, or -1 (errno EINVAL for anything but a regular file).
long long CQuire_regularFileSize(int descriptor);


/// posix_spawn_file_actions_addclosefrom_np(3): the child closes every descriptor from `lowest` up.
int CQuire_spawnCloseFrom(posix_spawn_file_actions_t *actions, int lowest);

/// Makes a spawned child start with no signal blocked and every signal at its default action (whatever the
/// spawning thread blocks or handles): 0, or an error number.
int CQuire_spawnResetSignals(posix_spawnattr_t *attributes);

/// setpriority(PRIO_PROCESS, 0, 19): this thread, and every thread it starts afterwards, at the lowest priority of
/// the normal policy (nice 19: a weight of 15 against 1,024 at nice 0, so 1.5 % of a processor that work at nice 0
/// wants too). An unprivileged process cannot raise it again. 0, or -1 with errno.
int CQuire_setBackgroundPriority(void);

/// The scheduling policy of process `pid` (0: this one): SCHED_OTHER is 0, SCHED_IDLE 5; -1 with errno on failure.
int CQuire_schedulingPolicy(int pid);

/// prctl(PR_SET_PDEATHSIG, signal): this process gets `signal` when its parent thread ends.
int CQuire_setParentDeathSignal(int signal);

/// prctl(PR_SET_NO_NEW_PRIVS, 1): exec can never grant more privileges.
int CQuire_setNoNewPrivileges(void);

/// The Landlock ABI version this kernel offers (landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION):
/// 1 or more, or -1 with errno ENOSYS (Landlock not built in, kernels before 5.13) or EOPNOTSUPP (not enabled).
int CQuire_landlockABI(void);

/// Landlock for the rest of this process's life and its children: of the file system, only reading files and
/// listing directories beneath the `count` directories in `readablePaths`, and reading those that are files (those
/// that do not exist are skipped);
/// every other right the ABI knows (write, create, remove, execute, truncate, refer, device ioctl) is denied
/// everywhere, and from ABI 4 TCP bind/connect, from ABI 6 abstract Unix sockets and signals outside the
/// sandbox. Needs no_new_privs. Restricts the calling thread only: call it while the process has one thread.
/// Returns the ABI version enforced, or -1 with errno (ENOSYS or EOPNOTSUPP when Landlock is unavailable).
int CQuire_restrictFileSystem(const char *const *readablePaths, int count);

/// Installs the PDF worker's seccomp-BPF filter on every thread of the process (SECCOMP_FILTER_FLAG_TSYNC):
/// calls of another architecture, new processes and programs (execve, fork, clone without CLONE_THREAD),
/// sockets, opens that could write, create or truncate, openat2, taking over SIGSYS, and changes to the file
/// system, namespaces or the kernel kill the process (SECCOMP_RET_KILL_PROCESS, SIGSYS); the calls the worker
/// needs are allowed; any other call fails with ENOSYS. Every open and openat traps to a broker (a SIGSYS
/// handler this installs first) that lets through only read-only opens of absolute paths beneath the `count`
/// directories in `readablePaths` (no "." or ".." component) and kills the process for any other.
/// sandbox.c holds the table. Needs no_new_privs.
/// Returns 0, or -1 with errno (or the id of a thread that could not be synchronised).
int CQuire_installSyscallFilter(const char *const *readablePaths, int count);

/// pthread_setname_np(3) for the calling thread: `name` is cut to the 15 bytes Linux keeps. 0, or an error
/// number (not -1 and errno, as pthread functions return).
int CQuire_nameThisThread(const char *name);

// MARK: the hand-over board (handover.c)
//
// A shared arbiter host and its clients share a board of 64-byte cells, one per connection slot, in a file the
// host creates (FileCoordination's HandOverBoard documents the protocol). These functions are the only code that
// touches it: atomic loads, stores and compare-and-swaps, and the futex calls of its doorbells. Words of cell c:
//   0 arm      [state:2][generation:22][access:40]  state 0 none, 1 armed, 2 firing, 3 fired
//   1 target   [waiter cell:32][waiter generation:32]
//   2 request  the waiter's own request number
//   3 grant    [generation:22][request + 1:40], written by an ender for this cell's client
//   4 presence 0 not waiting, 1 spinning, 2 sleeping on the doorbell
//   5 doorbell a futex word (low 32 bits) rung by enders and the host
//   6 generation of the cell's current connection

/// Cells on a board, bytes per cell.
#define CQUIRE_BOARD_CELLS 1024
#define CQUIRE_BOARD_CELL_SIZE 64
/// Bits of a generation, of an access or request number.
#define CQUIRE_BOARD_GENERATION_BITS 22
#define CQUIRE_BOARD_NUMBER_BITS 40

/// Host: gives `cell` to a new connection of `generation`: clears its arm, grant and presence. Returns 0, or -1
/// when the cell's previous connection is in the middle of firing (the cell must not be given out).
int CQuire_boardAssign(uint64_t *board, uint32_t cell, uint32_t generation);
/// Host: arms `cell` (of `generation`): when its client ends `access`, it grants `request` of `waiterCell` (of
/// `waiterGeneration`). Returns 1, or 0 when the cell is firing and cannot be armed now.
int CQuire_boardArm(uint64_t *board, uint32_t cell, uint32_t generation, uint64_t access, uint32_t waiterCell,
                    uint32_t waiterGeneration, uint64_t request);
/// Host: where the hand-over armed on `cell` for `access` stands: 0 still armed, 1 firing, 2 fired, -1 not armed
/// for it.
int CQuire_boardState(const uint64_t *board, uint32_t cell, uint32_t generation, uint64_t access);
/// Host: takes the hand-over armed on `cell` for `access` back: 0 revoked (or not armed), 1 firing, 2 fired.
int CQuire_boardRevoke(uint64_t *board, uint32_t cell, uint32_t generation, uint64_t access);
/// Host: whether the grant of `request` written for `waiterCell` is still there, not taken.
int CQuire_boardGrantPending(const uint64_t *board, uint32_t waiterCell, uint32_t waiterGeneration, uint64_t request);
/// Host: takes an untaken grant back (to send it as a frame): 1 taken back, 0 the client took it first.
int CQuire_boardReclaim(uint64_t *board, uint32_t waiterCell, uint32_t waiterGeneration, uint64_t request);
/// Host: the presence word of `cell`.
int CQuire_boardPresence(const uint64_t *board, uint32_t cell);
/// Client: fires the hand-over armed on its `cell` for `access`, if any: claims it, writes the waiter's grant and
/// rings its doorbell. Returns 0 when nothing was armed for it, 1 when it fired and the waiter waits on the board
/// (the host learns of the end from the board), 2 when it fired but the waiter is not waiting on the board (the
/// end must still be sent, so that the host wakes and sends the grant as a frame).
int CQuire_boardFire(uint64_t *board, uint32_t cell, uint32_t generation, uint64_t access);
/// Client: takes the grant written for its `cell` (of `generation`): the request number + 1, or 0 when none.
uint64_t CQuire_boardTake(uint64_t *board, uint32_t cell, uint32_t generation);
/// Client: sets its cell's presence word (sequentially consistent, before its last look).
void CQuire_boardSetPresence(uint64_t *board, uint32_t cell, int presence);
/// The doorbell's value, to sleep on.
uint32_t CQuire_boardDoorbell(const uint64_t *board, uint32_t cell);
/// Rings `cell`'s doorbell; wakes its client if it sleeps on it (FUTEX_WAKE).
void CQuire_boardRing(uint64_t *board, uint32_t cell);
/// Client: sleeps until the doorbell moves from `seen` or `milliseconds` pass (FUTEX_WAIT, shared).
void CQuire_boardSleep(uint64_t *board, uint32_t cell, uint32_t seen, int milliseconds);

#endif
