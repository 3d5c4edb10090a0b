/* A plain C program playing a whole data-only line game: the yardstick for `slotlab simulate`.
 *
 *     line_game SPINS [SEED [WORKERS [CHUNK_SPINS [BET_LEVEL]]]]
 *
 * The game is known at compile time: bench_simulate_vs_c.py writes a model's tables (padded
 * strips and their lengths for the base and free games, lines, pays, wild, scatter pays, free
 * spin awards, multiplier, retrigger, cap) as constants into "line_game_model.h", as a
 * hand-written simulator of one game would have them. It plays what slotlab's line kernel plays:
 * a base spin, then the free spins it awards (retriggers, the cap on free spins awarded, the
 * max win), and keeps the same running sums (win, win squared, hits, max win and its count,
 * features, the four components, the win bands and the largest wins).
 *
 * The draws are slotlab's simulation draws: chunk i of CHUNK_SPINS rounds draws from
 * xoshiro256** seeded by numpy's SeedSequence(SEED, spawn_key=(i,)) (reimplemented below), reel
 * stops by Lemire's unbiased multiply-and-reject on the top 32 bits; chunks are merged in index
 * order. So for the same SEED and CHUNK_SPINS it prints the same figures as
 * `slotlab simulate MODEL --spins SPINS --seed SEED --chunk-spins CHUNK_SPINS`, whatever
 * WORKERS (threads). Lines are paid the plain way (the run from the left, wild run against the
 * substituted run), no lookup tables. Build with -ffp-contract=off: a fused multiply-add would
 * round the sum of squares differently from numba.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "line_game_model.h" /* REELS ROWS LINES WILD WILD_MULT SCATTER FS_MULT FS_RETRIGGER
                                FS_MAX CAP DIVISOR STRIP_W, BASE BASE_LEN FREE FREE_LEN
                                LINE_ROWS PAYTAB SUBSTITUTES SCATTER_PAYS FS_AWARDS */

#define MAX_FREE_SPINS 100000
#define N_COMPONENTS 4
#define N_BANDS 13
#define N_TOP 8
static const int64_t BAND_EDGES[N_BANDS - 2] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000};

typedef struct {
    int64_t spins, win, hits, max, max_count, features;
    int64_t comp[N_COMPONENTS];
    int64_t bands[N_BANDS];
    int64_t top[N_TOP];
    double sq;
} sums_t;

/* --- numpy's SeedSequence(entropy, spawn_key=(chunk,)).generate_state(4, uint64) ---------- */

#define SS_INIT_A 0x43b0d7e5u
#define SS_MULT_A 0x931e8875u
#define SS_INIT_B 0x8b51f9ddu
#define SS_MULT_B 0x58f38dedu
#define SS_MIX_L 0xca01f9ddu
#define SS_MIX_R 0x4973f715u

static uint32_t hashmix(uint32_t value, uint32_t *h) {
    value ^= *h;
    *h *= SS_MULT_A;
    value *= *h;
    return value ^ (value >> 16);
}

static uint32_t mix(uint32_t x, uint32_t y) {
    uint32_t r = SS_MIX_L * x - SS_MIX_R * y;
    return r ^ (r >> 16);
}

static void seed_words(uint64_t seed, uint64_t chunk, uint64_t out[4]) {
    uint32_t entropy[8];
    int n = 0;
    /* the root seed as 32-bit words (0 is one word 0), padded to the pool size of 4 */
    do {
        entropy[n++] = (uint32_t)seed;
        seed >>= 32;
    } while (seed);
    while (n < 4) entropy[n++] = 0;
    do { /* the spawn key */
        entropy[n++] = (uint32_t)chunk;
        chunk >>= 32;
    } while (chunk);
    uint32_t pool[4], h = SS_INIT_A;
    for (int i = 0; i < 4; i++) pool[i] = hashmix(entropy[i], &h);
    for (int s = 0; s < 4; s++)
        for (int d = 0; d < 4; d++)
            if (s != d) pool[d] = mix(pool[d], hashmix(pool[s], &h));
    for (int s = 4; s < n; s++)
        for (int d = 0; d < 4; d++) pool[d] = mix(pool[d], hashmix(entropy[s], &h));
    uint32_t state[8], hb = SS_INIT_B;
    for (int i = 0; i < 8; i++) {
        uint32_t v = pool[i % 4] ^ hb;
        hb *= SS_MULT_B;
        v *= hb;
        state[i] = v ^ (v >> 16);
    }
    for (int i = 0; i < 4; i++) out[i] = (uint64_t)state[2 * i] | ((uint64_t)state[2 * i + 1] << 32);
    if (!(out[0] | out[1] | out[2] | out[3])) out[0] = 1; /* as slotlab.rng.xoshiro_stream */
}

/* --- xoshiro256** and Lemire's bounded draw ------------------------------------------------ */

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t next_u64(uint64_t *s) {
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

static inline int64_t randbelow(uint64_t *s, uint64_t n) {
    uint64_t m = (next_u64(s) >> 32) * n;
    uint64_t low = m & 0xFFFFFFFFu;
    if (low < n) {
        uint64_t threshold = (0x100000000u - n) % n;
        while (low < threshold) {
            m = (next_u64(s) >> 32) * n;
            low = m & 0xFFFFFFFFu;
        }
    }
    return (int64_t)(m >> 32);
}

/* --- the game ------------------------------------------------------------------------------ */

typedef uint8_t window_t[REELS][ROWS];

static inline int64_t pay_line(const window_t w, const uint8_t *line) {
    uint8_t t = w[0][line[0]];
    if (t != WILD) {
        int k = 1, has_wild = 0;
        while (k < REELS) {
            uint8_t x = w[k][line[k]];
            if (x == WILD && SUBSTITUTES[t]) {
                has_wild = 1;
            } else if (x != t) {
                break;
            }
            k++;
        }
        return has_wild ? PAYTAB[t][k] * WILD_MULT : PAYTAB[t][k];
    }
    int n = 1;
    while (n < REELS && w[n][line[n]] == WILD) n++;
    int64_t best = PAYTAB[WILD][n];
    if (n < REELS) {
        t = w[n][line[n]];
        if (SUBSTITUTES[t]) {
            int k = n + 1;
            while (k < REELS && (w[k][line[k]] == t || w[k][line[k]] == WILD)) k++;
            int64_t pay = PAYTAB[t][k] * WILD_MULT;
            if (pay > best) best = pay;
        }
    }
    return best;
}

/* One spin on the strips (base or free): its line units; *scatters gets the scatter count. */
static inline int64_t spin(const uint8_t strips[REELS][STRIP_W], const int64_t *lengths,
                           uint64_t *s, int *scatters) {
    window_t w;
    int count = 0;
    for (int r = 0; r < REELS; r++) {
        int64_t stop = randbelow(s, (uint64_t)lengths[r]);
        for (int row = 0; row < ROWS; row++) {
            uint8_t x = strips[r][stop + row];
            w[r][row] = x;
            count += x == SCATTER;
        }
    }
    int64_t total = 0;
    for (int li = 0; li < LINES; li++) total += pay_line(w, LINE_ROWS[li]);
    *scatters = count;
    return total;
}

static void keep_top(sums_t *a, int64_t win) {
    int i = N_TOP - 1;
    while (i > 0 && a->top[i - 1] < win) {
        a->top[i] = a->top[i - 1];
        i--;
    }
    a->top[i] = win;
}

static void play_chunk(uint64_t *s, int64_t spins, int64_t level, int64_t bet, sums_t *a) {
    for (int64_t i = 0; i < spins; i++) {
        int count;
        int64_t base_lines = spin(BASE, BASE_LEN, s, &count);
        int64_t base_scatter = SCATTER_PAYS[count];
        int64_t total = FS_AWARDS[count], free_units = 0;
        int triggered = total > 0;
        if (FS_MAX > 0 && total > FS_MAX) total = FS_MAX;
        for (int64_t played = 0; played < total && played < MAX_FREE_SPINS; played++) {
            free_units += (spin(FREE, FREE_LEN, s, &count) + SCATTER_PAYS[count]) * FS_MULT;
            int64_t more = FS_RETRIGGER ? FS_AWARDS[count] : 0;
            if (FS_MAX > 0 && total + more > FS_MAX) more = FS_MAX - total;
            if (more > 0) total += more;
        }
        int64_t uncapped = base_lines + base_scatter + free_units;
        int64_t capped = uncapped < CAP ? uncapped : CAP;
        int64_t win = capped * level;
        a->spins++;
        a->win += win;
        a->hits += win > 0;
        a->features += triggered;
        if (win > a->max) {
            a->max = win;
            a->max_count = 1;
        } else if (win == a->max && win > 0) {
            a->max_count++;
        }
        int band = 0;
        if (win > 0) {
            band = 1;
            for (int e = 0; e < N_BANDS - 2; e++) band += win >= BAND_EDGES[e] * bet;
        }
        a->bands[band]++;
        if (win > a->top[N_TOP - 1]) keep_top(a, win);
        double x = (double)win / (double)bet;
        a->sq += x * x;
        a->comp[0] += base_lines * level;
        a->comp[1] += base_scatter * level;
        a->comp[2] += free_units * level;
        a->comp[3] += (capped - uncapped) * level;
    }
}

/* --- chunks over threads, merged in index order --------------------------------------------- */

typedef struct {
    uint64_t seed;
    int64_t spins, chunk_spins, n_chunks, level, bet;
    atomic_llong next;
    sums_t *chunks;
} job_t;

static void *worker(void *arg) {
    job_t *job = arg;
    for (;;) {
        int64_t i = atomic_fetch_add(&job->next, 1);
        if (i >= job->n_chunks) return NULL;
        int64_t n = job->chunk_spins;
        if (i == job->n_chunks - 1 && job->spins % job->chunk_spins) n = job->spins % job->chunk_spins;
        uint64_t s[4];
        seed_words(job->seed, (uint64_t)i, s);
        memset(&job->chunks[i], 0, sizeof(sums_t));
        play_chunk(s, n, job->level, job->bet, &job->chunks[i]);
    }
}

static void merge(sums_t *a, const sums_t *b) {
    int64_t top[2 * N_TOP];
    memcpy(top, a->top, sizeof a->top);
    memcpy(top + N_TOP, b->top, sizeof b->top);
    for (int i = 0; i < N_TOP; i++) { /* the N_TOP largest of both, descending */
        int best = i;
        for (int j = i + 1; j < 2 * N_TOP; j++)
            if (top[j] > top[best]) best = j;
        int64_t t = top[i];
        top[i] = top[best];
        top[best] = t;
        a->top[i] = top[i];
    }
    a->spins += b->spins;
    a->win += b->win;
    a->hits += b->hits;
    a->features += b->features;
    for (int i = 0; i < N_COMPONENTS; i++) a->comp[i] += b->comp[i];
    for (int i = 0; i < N_BANDS; i++) a->bands[i] += b->bands[i];
    if (b->max > a->max) {
        a->max = b->max;
        a->max_count = b->max_count;
    } else if (b->max == a->max) {
        a->max_count += b->max_count;
    }
    a->sq += b->sq;
}

static void print_array(const char *name, const int64_t *x, int n, const char *end) {
    printf("  \"%s\": [", name);
    for (int i = 0; i < n; i++) printf("%s%lld", i ? ", " : "", (long long)x[i]);
    printf("]%s\n", end);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s SPINS [SEED [WORKERS [CHUNK_SPINS [BET_LEVEL]]]]\n", argv[0]);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    job_t job;
    job.spins = (int64_t)strtod(argv[1], NULL); /* 1e9 and 1000000000 alike */
    job.seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
    int workers = argc > 3 ? atoi(argv[3]) : 1;
    job.chunk_spins = argc > 4 ? (int64_t)strtod(argv[4], NULL) : 1 << 20;
    job.level = argc > 5 ? atoll(argv[5]) : 1;
    if (job.spins <= 0 || job.chunk_spins <= 0 || workers < 1 || job.level < 1) return 2;
    job.bet = job.level * DIVISOR;
    job.n_chunks = (job.spins + job.chunk_spins - 1) / job.chunk_spins;
    atomic_init(&job.next, 0);
    job.chunks = calloc((size_t)job.n_chunks, sizeof(sums_t));
    pthread_t *threads = calloc((size_t)workers, sizeof(pthread_t));
    for (int i = 0; i < workers; i++) pthread_create(&threads[i], NULL, worker, &job);
    for (int i = 0; i < workers; i++) pthread_join(threads[i], NULL);
    sums_t total = job.chunks[0];
    for (int64_t i = 1; i < job.n_chunks; i++) merge(&total, &job.chunks[i]);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("{\n  \"spins\": %lld,\n  \"bet\": %lld,\n  \"seed\": %llu,\n", (long long)total.spins,
           (long long)job.bet, (unsigned long long)job.seed);
    printf("  \"total_win\": %lld,\n  \"sum_sq\": %.17g,\n  \"hits\": %lld,\n",
           (long long)total.win, total.sq, (long long)total.hits);
    printf("  \"max_win\": %lld,\n  \"max_win_count\": %lld,\n  \"features\": %lld,\n",
           (long long)total.max, (long long)total.max_count, (long long)total.features);
    print_array("components", total.comp, N_COMPONENTS, ",");
    print_array("bands", total.bands, N_BANDS, ",");
    print_array("top_wins", total.top, N_TOP, ",");
    printf("  \"workers\": %d,\n  \"chunk_spins\": %lld,\n  \"seconds\": %.6f\n}\n", workers,
           (long long)job.chunk_spins, seconds);
    free(threads);
    free(job.chunks);
    return 0;
}
