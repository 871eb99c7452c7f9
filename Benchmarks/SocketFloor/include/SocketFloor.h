#ifndef QUIRE_SOCKET_FLOOR_H
#define QUIRE_SOCKET_FLOOR_H
#include <stdint.h>

/// The floor of a cross-process round trip: a forked child answers each `size`-byte message written on a Unix
/// stream socketpair with `size` bytes, both sides blocked in read(2). Fills `samples` with the nanoseconds of
/// each of `rounds` round trips (after `warmup` untimed ones). Returns 0, or -1 (errno set) if a call failed.
int quire_socketpair_pingpong(int rounds, int warmup, int size, uint64_t *samples);

/// The same round trip with both sides waiting without sleeping (poll with a zero timeout and sched_yield until
/// the socket is readable, then read): the floor without the cost of waking a sleeping process.
int quire_socketpair_pingpong_spinning(int rounds, int warmup, int size, uint64_t *samples);

#endif
