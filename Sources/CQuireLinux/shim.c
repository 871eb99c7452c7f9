#define _GNU_SOURCE
#include "CQuireLinux.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
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

int CQuire_peerCredentials(int sockfd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(sockfd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}
