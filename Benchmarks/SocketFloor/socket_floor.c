#include "SocketFloor.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
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

struct handover_shared {
    _Atomic unsigned next;
    _Atomic unsigned serving;
    _Atomic int ready;
    _Atomic int go;
};

double quire_handover_floor(int processes, int count) {
    struct handover_shared *shared =
        mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) return -1;
    atomic_store(&shared->next, 0);
    atomic_store(&shared->serving, 0);
    atomic_store(&shared->ready, 0);
    atomic_store(&shared->go, 0);
    int pair[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair) != 0) {
        munmap(shared, sizeof *shared);
        return -1;
    }
    pid_t children[65];
    int started = 0;
    if (processes > 64) processes = 64;
    pid_t host = fork();
    if (host == 0) {
        char note[16];
        long expected = (long)processes * count;
        close(pair[1]);
        alarm(120);
        struct pollfd entry = {.fd = pair[0], .events = POLLIN};
        for (long got = 0; got < expected;) {
            if (poll(&entry, 1, 0) > 0) {
                if (recv(pair[0], note, sizeof note, 0) > 0) got++;
            } else {
                sched_yield();
            }
        }
        _exit(0);
    }
    if (host < 0) goto failed;
    children[started++] = host;
    for (int index = 0; index < processes; index++) {
        pid_t child = fork();
        if (child == 0) {
            alarm(120);
            atomic_fetch_add(&shared->ready, 1);
            while (!atomic_load(&shared->go)) sched_yield();
            for (int round = 0; round < count; round++) {
                unsigned ticket = atomic_fetch_add(&shared->next, 1);
                while (atomic_load_explicit(&shared->serving, memory_order_acquire) != ticket) sched_yield();
                atomic_store_explicit(&shared->serving, ticket + 1, memory_order_release);
                send(pair[1], "end", 3, 0);
            }
            _exit(0);
        }
        if (child < 0) goto failed;
        children[started++] = child;
    }
    // Every writer is running before the first ticket is taken: otherwise the first does its rounds alone.
    while (atomic_load(&shared->ready) < processes) sched_yield();
    uint64_t start = now_ns();
    atomic_store(&shared->go, 1);
    int failures = 0;
    for (int index = 0; index < started; index++) {
        int status = 0;
        if (waitpid(children[index], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) failures++;
    }
    uint64_t elapsed = now_ns() - start;
    close(pair[0]);
    close(pair[1]);
    munmap(shared, sizeof *shared);
    if (failures) {
        errno = ECHILD;
        return -1;
    }
    return (double)processes * count / ((double)elapsed / 1e9);

failed:
    for (int index = 0; index < started; index++) {
        kill(children[index], SIGKILL);
        waitpid(children[index], NULL, 0);
    }
    close(pair[0]);
    close(pair[1]);
    munmap(shared, sizeof *shared);
    return -1;
}
