#include "SocketFloor.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec spec;
    clock_gettime(CLOCK_MONOTONIC, &spec);
    return (uint64_t)spec.tv_sec * 1000000000u + (uint64_t)spec.tv_nsec;
}

/* Waits for `fd` to be readable without sleeping: poll with a zero timeout, yielding the CPU in between. */
static void spin_until_readable(int fd) {
    struct pollfd entry = {.fd = fd, .events = POLLIN};
    while (poll(&entry, 1, 0) == 0) sched_yield();
}

static int spinning = 0;

static int transfer(int fd, char *buffer, int size, int writing) {
    int done = 0;
    while (done < size) {
        if (!writing && spinning) spin_until_readable(fd);
        ssize_t count = writing ? write(fd, buffer + done, size - done) : read(fd, buffer + done, size - done);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return -1;
        done += (int)count;
    }
    return 0;
}

int quire_socketpair_pingpong_spinning(int rounds, int warmup, int size, uint64_t *samples) {
    spinning = 1;
    int result = quire_socketpair_pingpong(rounds, warmup, size, samples);
    spinning = 0;
    return result;
}

int quire_socketpair_pingpong(int rounds, int warmup, int size, uint64_t *samples) {
    int fds[2];
    char buffer[4096];
    if (size <= 0 || size > (int)sizeof buffer) { errno = EINVAL; return -1; }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return -1;
    for (int i = 0; i < size; i++) buffer[i] = (char)i;
    pid_t child = fork();
    if (child < 0) return -1;
    if (child == 0) {
        close(fds[0]);
        while (transfer(fds[1], buffer, size, 0) == 0 && transfer(fds[1], buffer, size, 1) == 0) {}
        _exit(0);
    }
    close(fds[1]);
    int result = 0;
    for (int round = 0; round < warmup + rounds; round++) {
        uint64_t start = now_ns();
        if (transfer(fds[0], buffer, size, 1) != 0 || transfer(fds[0], buffer, size, 0) != 0) { result = -1; break; }
        if (round >= warmup) samples[round - warmup] = now_ns() - start;
    }
    close(fds[0]);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    return result;
}
