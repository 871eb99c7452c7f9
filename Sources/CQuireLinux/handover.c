// The hand-over board's atomic operations (see CQuireLinux.h). Every access to the shared words is atomic; the
// orders below are the protocol's: a host writes target and request before it arms; an ender claims the arm
// (armed → firing) before it reads them, writes the waiter's grant, marks the arm fired and rings; a waiter says
// it sleeps before its last look, and a ringer looks at that word after its write (sequentially consistent).
#include "CQuireLinux.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NUMBER_MASK ((1ull << CQUIRE_BOARD_NUMBER_BITS) - 1)
#define GENERATION_MASK ((1ull << CQUIRE_BOARD_GENERATION_BITS) - 1)
#define WORDS (CQUIRE_BOARD_CELL_SIZE / 8)

enum { NONE = 0, ARMED = 1, FIRING = 2, FIRED = 3 };

static inline uint64_t *word(uint64_t *board, uint32_t cell, int index) {
    return board + (uint64_t)cell * WORDS + index;
}

static inline const uint64_t *constWord(const uint64_t *board, uint32_t cell, int index) {
    return board + (uint64_t)cell * WORDS + index;
}

static inline uint64_t arm(int state, uint32_t generation, uint64_t access) {
    return ((uint64_t)state << 62) | (((uint64_t)generation & GENERATION_MASK) << CQUIRE_BOARD_NUMBER_BITS) |
           (access & NUMBER_MASK);
}

static inline uint64_t grant(uint32_t generation, uint64_t request) {
    return (((uint64_t)generation & GENERATION_MASK) << CQUIRE_BOARD_NUMBER_BITS) | ((request + 1) & NUMBER_MASK);
}

int CQuire_boardAssign(uint64_t *board, uint32_t cell, uint32_t generation) {
    if (__atomic_load_n(word(board, cell, 0), __ATOMIC_ACQUIRE) >> 62 == FIRING) return -1;
    __atomic_store_n(word(board, cell, 0), 0, __ATOMIC_RELEASE);
    __atomic_store_n(word(board, cell, 3), 0, __ATOMIC_RELEASE);
    __atomic_store_n(word(board, cell, 4), 0, __ATOMIC_RELEASE);
    __atomic_store_n(word(board, cell, 6), (uint64_t)generation, __ATOMIC_RELEASE);
    return 0;
}

int CQuire_boardArm(uint64_t *board, uint32_t cell, uint32_t generation, uint64_t access, uint32_t waiterCell,
                    uint32_t waiterGeneration, uint64_t request) {
    if (__atomic_load_n(word(board, cell, 0), __ATOMIC_ACQUIRE) >> 62 == FIRING) return 0;
    __atomic_store_n(word(board, cell, 1), ((uint64_t)waiterCell << 32) | waiterGeneration, __ATOMIC_RELAXED);
    __atomic_store_n(word(board, cell, 2), request, __ATOMIC_RELAXED);
    __atomic_store_n(word(board, cell, 0), arm(ARMED, generation, access), __ATOMIC_RELEASE);
    return 1;
}

int CQuire_boardState(const uint64_t *board, uint32_t cell, uint32_t generation, uint64_t access) {
    uint64_t value = __atomic_load_n(constWord(board, cell, 0), __ATOMIC_ACQUIRE);
    if (value == arm(ARMED, generation, access)) return 0;
    if (value == arm(FIRING, generation, access)) return 1;
    if (value == arm(FIRED, generation, access)) return 2;
    return -1;
}

int CQuire_boardRevoke(uint64_t *board, uint32_t cell, uint32_t generation, uint64_t access) {
    uint64_t expected = arm(ARMED, generation, access);
    if (__atomic_compare_exchange_n(word(board, cell, 0), &expected, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 0;
    if (expected == arm(FIRING, generation, access)) return 1;
    if (expected == arm(FIRED, generation, access)) return 2;
    return 0;
}

int CQuire_boardGrantPending(const uint64_t *board, uint32_t waiterCell, uint32_t waiterGeneration, uint64_t request) {
    return __atomic_load_n(constWord(board, waiterCell, 3), __ATOMIC_ACQUIRE) == grant(waiterGeneration, request);
}

int CQuire_boardReclaim(uint64_t *board, uint32_t waiterCell, uint32_t waiterGeneration, uint64_t request) {
    uint64_t expected = grant(waiterGeneration, request);
    return __atomic_compare_exchange_n(word(board, waiterCell, 3), &expected, 0, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

int CQuire_boardPresence(const uint64_t *board, uint32_t cell) {
    return (int)__atomic_load_n(constWord(board, cell, 4), __ATOMIC_SEQ_CST);
}

int CQuire_boardFire(uint64_t *board, uint32_t cell, uint32_t generation, uint64_t access) {
    uint64_t expected = arm(ARMED, generation, access);
    if (__atomic_load_n(word(board, cell, 0), __ATOMIC_RELAXED) != expected) return 0;
    if (!__atomic_compare_exchange_n(word(board, cell, 0), &expected, arm(FIRING, generation, access), 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return 0;
    uint64_t target = __atomic_load_n(word(board, cell, 1), __ATOMIC_RELAXED);
    uint64_t request = __atomic_load_n(word(board, cell, 2), __ATOMIC_RELAXED);
    uint32_t waiterCell = (uint32_t)(target >> 32);
    if (waiterCell < CQUIRE_BOARD_CELLS) {
        __atomic_store_n(word(board, waiterCell, 3), grant((uint32_t)target, request), __ATOMIC_SEQ_CST);
    }
    __atomic_store_n(word(board, cell, 0), arm(FIRED, generation, access), __ATOMIC_RELEASE);
    if (waiterCell >= CQUIRE_BOARD_CELLS) return 2;
    CQuire_boardRing(board, waiterCell);
    // Read after the grant was written (sequentially consistent): a waiter that says it waits after this
    // looks at its grant word afterwards and finds it.
    return __atomic_load_n(word(board, waiterCell, 4), __ATOMIC_SEQ_CST) == 0 ? 2 : 1;
}

uint64_t CQuire_boardTake(uint64_t *board, uint32_t cell, uint32_t generation) {
    uint64_t value = __atomic_load_n(word(board, cell, 3), __ATOMIC_ACQUIRE);
    if (value == 0 || (value >> CQUIRE_BOARD_NUMBER_BITS) != ((uint64_t)generation & GENERATION_MASK)) return 0;
    if (!__atomic_compare_exchange_n(word(board, cell, 3), &value, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return 0;
    return value & NUMBER_MASK;
}

void CQuire_boardSetPresence(uint64_t *board, uint32_t cell, int presence) {
    __atomic_store_n(word(board, cell, 4), (uint64_t)presence, __ATOMIC_SEQ_CST);
}

uint32_t CQuire_boardDoorbell(const uint64_t *board, uint32_t cell) {
    return __atomic_load_n((const uint32_t *)constWord(board, cell, 5), __ATOMIC_SEQ_CST);
}

void CQuire_boardRing(uint64_t *board, uint32_t cell) {
    uint32_t *doorbell = (uint32_t *)word(board, cell, 5);
    __atomic_fetch_add(doorbell, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(word(board, cell, 4), __ATOMIC_SEQ_CST) == 2)
        syscall(SYS_futex, doorbell, FUTEX_WAKE, 1, NULL, NULL, 0);
}

void CQuire_boardSleep(uint64_t *board, uint32_t cell, uint32_t seen, int milliseconds) {
    struct timespec timeout = {milliseconds / 1000, (long)(milliseconds % 1000) * 1000000};
    syscall(SYS_futex, (uint32_t *)word(board, cell, 5), FUTEX_WAIT, seen, &timeout, NULL, 0);
}
