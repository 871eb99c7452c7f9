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

/// The floor of a direct hand-over, for the storm of writers: `processes` forked children take a FIFO ticket lock
/// in shared memory `count` times each, waiting as Quire's waiters do (checking, then sched_yield), the access
/// itself empty, and send each hand-over, one datagram, to one more process that polls for them the same way, as
/// an arbiter that keeps the books would have to be told. Returns hand-overs per second, or -1 (errno set) if a
/// call failed.
double quire_handover_floor(int processes, int count);

#endif
