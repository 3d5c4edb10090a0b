/* A plain C line evaluator: the yardstick for slotlab's shared line evaluator.
 *
 * The game is known at compile time: the benchmark writes its tables (strips, lines, pays,
 * wild, scatter) as constants into "line_evaluator_model.h" and builds this file with the
 * system gcc, so the compiler sees every size and symbol (as a hand-written evaluator of one
 * game would). 5 reels x 3 rows, 30 lines, strips of 64 stops drawn uniformly.
 *
 * No lookup tables beyond the model itself: every line is paid the plain way, walking its run
 * from the leftmost reel. A run of wilds pays PAYTAB[WILD][w]; a run of the first other symbol
 * t (wilds standing in for t when SUBSTITUTES[t]) pays PAYTAB[t][k], times WILD_MULT when the
 * run holds a wild; a line pays the better of the two. Scatters pay SCATTER_PAYS[count]
 * anywhere in the window.
 *
 * Stops come from xoshiro256** (one 64-bit draw per reel, its top 6 bits: exactly uniform on 64
 * stops), the generator the numba side of the benchmark draws from, or from an array of stops.
 */
#include <stdint.h>

#include "line_evaluator_model.h" /* REELS ROWS LINES STOPS WILD WILD_MULT SCATTER N_SYMBOLS,
                                     STRIPS LINE_ROWS PAYTAB SUBSTITUTES SCATTER_PAYS */

typedef uint8_t window_t[REELS][ROWS];

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** (Blackman and Vigna), the reference step. */
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

/* The pay of one line. Most lines start with a symbol other than the wild: their run is
 * walked while the cells are that symbol or a wild standing in for it. A line starting with
 * wilds pays the better of its run of wilds and the run of the first other symbol. */
static inline int64_t pay_line(const window_t window, const uint8_t *line) {
    uint8_t t = window[0][line[0]];
    if (t != WILD) {
        int k = 1, has_wild = 0;
        while (k < REELS) {
            uint8_t x = window[k][line[k]];
            if (x == WILD && SUBSTITUTES[t]) {
                has_wild = 1;
            } else if (x != t) {
                break;
            }
            k++;
        }
        return has_wild ? PAYTAB[t][k] * WILD_MULT : PAYTAB[t][k];
    }
    int w = 1;
    while (w < REELS && window[w][line[w]] == WILD) w++;
    int64_t best = PAYTAB[WILD][w];
    if (w < REELS) {
        t = window[w][line[w]];
        if (SUBSTITUTES[t]) {
            int k = w + 1;
            while (k < REELS && (window[k][line[k]] == t || window[k][line[k]] == WILD)) k++;
            int64_t pay = PAYTAB[t][k] * WILD_MULT;
            if (pay > best) best = pay;
        }
    }
    return best;
}

/* Adds one window's line pays to *lines_out and its scatter pay to *scatter_out. */
static inline void pay_window(const window_t window, int64_t *lines_out, int64_t *scatter_out) {
    int64_t total = 0;
    for (int li = 0; li < LINES; li++) total += pay_line(window, LINE_ROWS[li]);
    int count = 0;
    for (int r = 0; r < REELS; r++)
        for (int row = 0; row < ROWS; row++) count += window[r][row] == SCATTER;
    *lines_out += total;
    *scatter_out += SCATTER_PAYS[count];
}

static inline void fill_window(const int64_t *stops, window_t window) {
    for (int r = 0; r < REELS; r++)
        for (int row = 0; row < ROWS; row++)
            window[r][row] = STRIPS[r][(stops[r] + row) & (STOPS - 1)];
}

/* n_spins spins with stops from the xoshiro256** state s (updated); out[0] gets the line
 * pays, out[1] the scatter pays. */
void run_xoshiro(uint64_t *s, int64_t n_spins, int64_t *out) {
    uint64_t st[4] = {s[0], s[1], s[2], s[3]};
    int64_t lines_total = 0, scatter_total = 0;
    for (int64_t i = 0; i < n_spins; i++) {
        int64_t stops[REELS];
        window_t window;
        for (int r = 0; r < REELS; r++) stops[r] = (int64_t)(next_u64(st) >> 58);
        fill_window(stops, window);
        pay_window(window, &lines_total, &scatter_total);
    }
    for (int i = 0; i < 4; i++) s[i] = st[i];
    out[0] = lines_total;
    out[1] = scatter_total;
}

/* The same for the given stops (int64[n_spins][REELS]); per_spin (may be 0) gets each spin's
 * line pays. */
void run_stops(const int64_t *stops, int64_t n_spins, int64_t *out, int64_t *per_spin) {
    int64_t lines_total = 0, scatter_total = 0;
    for (int64_t i = 0; i < n_spins; i++) {
        window_t window;
        int64_t before = lines_total;
        fill_window(stops + i * REELS, window);
        pay_window(window, &lines_total, &scatter_total);
        if (per_spin) per_spin[i] = lines_total - before;
    }
    out[0] = lines_total;
    out[1] = scatter_total;
}
