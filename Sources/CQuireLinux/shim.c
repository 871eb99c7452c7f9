#define _GNU_SOURCE
#include "CQuireLinux.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

const int CQuire_O_PATH = O_PATH;
const int CQuire_O_NOFOLLOW = O_NOFOLLOW;
const int CQuire_O_DIRECTORY = O_DIRECTORY;
const int CQuire_O_NOCTTY = O_NOCTTY;

int CQuire_openat2(int dirfd, const char *path, int flags, mode_t mode, uint64_t resolve) {
#ifdef SYS_openat2
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(unsigned int)flags;
    how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
    how.resolve = resolve;
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int CQuire_accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags) {
    return accept4(sockfd, addr, addrlen, flags);
}

int CQuire_pipe2(int fds[2], int flags) {
    return pipe2(fds, flags);
}

int CQuire_mkostemps(char *template, int suffixlen, int flags) {
    return mkostemps(template, suffixlen, flags);
}

int CQuire_peerCredentials(int sockfd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(sockfd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

ssize_t CQuire_sendWithDescriptors(int socket, const void *bytes, size_t length, const int *descriptors, int count) {
    struct iovec vector = {.iov_base = (void *)bytes, .iov_len = length};
    union {
        char buffer[CMSG_SPACE(sizeof(int) * CQUIRE_MAXIMUM_DESCRIPTORS)];
        struct cmsghdr align;
    } control;
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    if (count < 0 || count > CQUIRE_MAXIMUM_DESCRIPTORS) {
        errno = EINVAL;
        return -1;
    }
    if (count > 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.buffer;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)count);
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
        memcpy(CMSG_DATA(header), descriptors, sizeof(int) * (size_t)count);
    }
    return sendmsg(socket, &message, MSG_NOSIGNAL);
}

ssize_t CQuire_sendWithDescriptor(int socket, const void *bytes, size_t length, int descriptor) {
    return CQuire_sendWithDescriptors(socket, bytes, length, &descriptor, descriptor >= 0 ? 1 : 0);
}

ssize_t CQuire_receiveWithDescriptors(int socket, void *bytes, size_t length, int *descriptors, int capacity,
                                      int *count) {
    struct iovec vector = {.iov_base = bytes, .iov_len = length};
    union {
        char buffer[CMSG_SPACE(sizeof(int) * 8)];
        struct cmsghdr align;
    } control;
    struct msghdr message;
    memset(&message, 0, sizeof message);
    memset(&control, 0, sizeof control);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    *count = 0;
    ssize_t received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    if (received < 0) return -1;
    int bad = (message.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) != 0;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t found = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t index = 0; index < found; index++) {
            int received_descriptor;
            memcpy(&received_descriptor, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
            if (*count < capacity) {
                descriptors[(*count)++] = received_descriptor;
            } else {
                close(received_descriptor);
                bad = 1;
            }
        }
    }
    if (bad) {
        for (int index = 0; index < *count; index++) close(descriptors[index]);
        *count = 0;
        errno = EBADMSG;
        return -1;
    }
    return received;
}

ssize_t CQuire_receiveWithDescriptor(int socket, void *bytes, size_t length, int *descriptor) {
    int count = 0;
    *descriptor = -1;
    ssize_t received = CQuire_receiveWithDescriptors(socket, bytes, length, descriptor, 1, &count);
    if (count == 0) *descriptor = -1;
    return received;
}

int CQuire_memfdCreate(const char *name) { return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING); }

int CQuire_sealCompletely(int descriptor) {
    return fcntl(descriptor, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
}

long long CQuire_regularFileSize(int descriptor) {
    struct stat info;
    if (fstat(descriptor, &info) != 0) return -1;
    if (!S_ISREG(info.st_mode)) {
        errno = EINVAL;
        return -1;
    }
    return (long long)info.st_size;
}

int CQuire_setParentDeathSignal(int signal) {
    return prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0);
}

int CQuire_setNoNewPrivileges(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

int CQuire_spawnCloseFrom(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int CQuire_sealedIdentity(int descriptor, uint64_t *device, uint64_t *inode) {
    int seals = fcntl(descriptor, F_GET_SEALS);
    int needed = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
    if (seals < 0 || (seals & needed) != needed) return -1;
    struct stat info;
    if (fstat(descriptor, &info) != 0 || !S_ISREG(info.st_mode)) return -1;
    *device = (uint64_t)info.st_dev;
    *inode = (uint64_t)info.st_ino;
    return 0;
}

int CQuire_setExtendedAttribute(const char *path, const char *name, const void *value, size_t size) {
    return setxattr(path, name, value, size, 0);
}

ssize_t CQuire_getExtendedAttribute(const char *path, const char *name, void *value, size_t size) {
    return getxattr(path, name, value, size);
}

int CQuire_createExtendedAttribute(const char *path, const char *name, const void *value, size_t size) {
    return setxattr(path, name, value, size, XATTR_CREATE);
}

int CQuire_birthIdentity(const char *path, uint64_t *device, uint64_t *inode, int64_t *birthSeconds,
                         uint32_t *birthNanoseconds) {
    struct statx status;
    if (statx(AT_FDCWD, path, 0, STATX_INO | STATX_BTIME, &status) != 0) return -1;
    *device = ((uint64_t)status.stx_dev_major << 32) | status.stx_dev_minor;
    *inode = status.stx_ino;
    if (status.stx_mask & STATX_BTIME) {
        *birthSeconds = status.stx_btime.tv_sec;
        *birthNanoseconds = status.stx_btime.tv_nsec;
    } else {
        *birthSeconds = 0;
        *birthNanoseconds = 0;
    }
    return 0;
}

int CQuire_spawnResetSignals(posix_spawnattr_t *attributes) {
    sigset_t empty, all;
    sigemptyset(&empty);
    sigfillset(&all);
    if (posix_spawnattr_setsigmask(attributes, &empty) != 0) return -1;
    if (posix_spawnattr_setsigdefault(attributes, &all) != 0) return -1;
    return posix_spawnattr_setflags(attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

int CQuire_setBackgroundPriority(void) {
    return setpriority(PRIO_PROCESS, 0, 19);
}

int CQuire_schedulingPolicy(int pid) { return sched_getscheduler(pid); }

int CQuire_nameThisThread(const char *name) {
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = 0;
    return pthread_setname_np(pthread_self(), cut);
}
