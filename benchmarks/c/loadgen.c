/* A small HTTP/1.1 keep-alive load generator for the game server's round endpoint.
 *
 *   loadgen HOST PORT PATH BODY TOKENS_FILE CONCURRENCY SECONDS
 *
 * Opens CONCURRENCY connections to HOST:PORT (IPv4), one player each: connection i sends the
 * bearer token on line i of TOKENS_FILE. Each connection POSTs BODY (JSON) to PATH back to back,
 * one request in flight, each with its own Idempotency-Key, until SECONDS have passed; requests
 * still in flight then are answered and counted. One thread and epoll: the client's CPU stays
 * a small share of the server's, so the figures are the server's.
 *
 * Prints one JSON object on stdout: rounds (201 answers whose round completed), requests, the
 * wall time, rounds/s, latency percentiles (nearest rank) in ms, answers by HTTP status, and the
 * client's own CPU seconds. Exits 2 on bad arguments, 1 when the server cannot be reached.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_STATUS 600
#define DRAIN_S 30.0 /* how long answers to requests sent before the deadline are awaited */

typedef struct {
    int fd;
    int index;
    const char *token;
    char *buf;
    size_t len, cap;
    uint64_t sent_ns;
    unsigned long seq;
} conn_t;

static struct sockaddr_in server_addr;
static const char *host, *path, *body;
static int port;
static char run_id[17];

static uint64_t *latencies;
static size_t n_lat, cap_lat;
static unsigned long status_counts[MAX_STATUS], rounds, incomplete, disconnects, unanswered;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "loadgen: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void record_latency(uint64_t ns) {
    if (n_lat == cap_lat) {
        cap_lat = cap_lat ? 2 * cap_lat : 65536;
        latencies = realloc(latencies, cap_lat * sizeof *latencies);
        if (!latencies) die("realloc");
    }
    latencies[n_lat++] = ns;
}

static void connect_conn(conn_t *c, int epfd) {
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0) die("socket");
    if (connect(c->fd, (struct sockaddr *)&server_addr, sizeof server_addr) < 0) die("connect");
    int one = 1; /* small requests, one at a time: send each at once */
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0) die("epoll_ctl");
    c->len = 0;
}

static void reconnect(conn_t *c, int epfd) {
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    connect_conn(c, epfd);
}

/* Write all of buf; the socket is non-blocking, so wait for room when it is full. */
static int write_all(int fd, const char *buf, size_t n) {
    while (n) {
        ssize_t w = write(fd, buf, n);
        if (w > 0) {
            buf += w;
            n -= (size_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            poll(&p, 1, 1000);
        } else {
            return -1;
        }
    }
    return 0;
}

/* Read what the socket holds into c->buf; returns 1 when the server closed the connection. */
static int read_available(conn_t *c) {
    for (;;) {
        if (c->cap - c->len < 4096) {
            c->cap *= 2;
            c->buf = realloc(c->buf, c->cap);
            if (!c->buf) die("realloc");
        }
        ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len);
        if (r > 0) {
            c->len += (size_t)r;
        } else if (r < 0 && errno == EINTR) {
            continue;
        } else {
            return !(r < 0 && errno == EAGAIN);
        }
    }
}

static int send_request(conn_t *c) {
    char req[8192];
    int n = snprintf(req, sizeof req,
                     "POST %s HTTP/1.1\r\nHost: %s:%d\r\nAuthorization: Bearer %s\r\n"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n"
                     "Idempotency-Key: lg-%s-%d-%lu\r\n\r\n%s",
                     path, host, port, c->token, strlen(body), run_id, c->index, c->seq++, body);
    if (n < 0 || (size_t)n >= sizeof req) {
        fprintf(stderr, "loadgen: request too long\n");
        exit(2);
    }
    c->sent_ns = now_ns();
    return write_all(c->fd, req, (size_t)n);
}

/* The value of header `name` in the head [head, end), or NULL. */
static const char *header(const char *head, const char *end, const char *name) {
    size_t k = strlen(name);
    for (const char *p = head; p && p < end; p = memchr(p, '\n', (size_t)(end - p))) {
        if (*p == '\n') p++;
        if ((size_t)(end - p) > k && strncasecmp(p, name, k) == 0 && p[k] == ':') {
            p += k + 1;
            while (*p == ' ') p++;
            return p;
        }
    }
    return NULL;
}

/* Length of the complete response at the start of c->buf, 0 if it is not all here yet, -1 if it
 * cannot be parsed. Sets *status, *keep (the server keeps the connection open) and *body_at. */
static long complete_response(conn_t *c, int *status, int *keep, size_t *body_at) {
    char *end = memmem(c->buf, c->len, "\r\n\r\n", 4);
    if (!end) return 0;
    size_t head_len = (size_t)(end - c->buf) + 4;
    if (c->len < 12 || strncmp(c->buf, "HTTP/1.", 7) != 0) return -1;
    *status = atoi(c->buf + 9);
    const char *conn = header(c->buf, end, "Connection");
    *keep = !(conn && strncasecmp(conn, "close", 5) == 0);
    *body_at = head_len;
    const char *cl = header(c->buf, end, "Content-Length");
    if (cl) {
        size_t total = head_len + strtoul(cl, NULL, 10);
        return c->len >= total ? (long)total : 0;
    }
    const char *te = header(c->buf, end, "Transfer-Encoding");
    if (te && strncasecmp(te, "chunked", 7) == 0) { /* no trailers: ends at the last chunk */
        char *last = memmem(c->buf + head_len - 2, c->len - head_len + 2, "\r\n0\r\n\r\n", 7);
        return last ? (long)(last + 7 - c->buf) : 0;
    }
    return -1;
}

static void on_response(conn_t *c, int status, size_t body_at, size_t total) {
    record_latency(now_ns() - c->sent_ns);
    status_counts[status > 0 && status < MAX_STATUS ? status : 0]++;
    if (status == 201) {
        const char *b = c->buf + body_at;
        size_t n = total - body_at;
        if (memmem(b, n, "\"status\":\"completed\"", 20) ||
            memmem(b, n, "\"status\": \"completed\"", 21))
            rounds++;
        else
            incomplete++;
    }
}

static char **read_tokens(const char *file, int need) {
    FILE *f = fopen(file, "r");
    if (!f) die(file);
    char **tokens = calloc((size_t)need, sizeof *tokens);
    char line[4096];
    int n = 0;
    while (n < need && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (*line) tokens[n++] = strdup(line);
    }
    fclose(f);
    if (n < need) {
        fprintf(stderr, "loadgen: %s has %d tokens, %d connections need one each\n", file, n, need);
        exit(2);
    }
    return tokens;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double percentile_ms(double p) {
    if (!n_lat) return 0;
    size_t rank = (size_t)(p * (double)n_lat + 0.999999999); /* nearest rank, 1-based */
    if (rank < 1) rank = 1;
    if (rank > n_lat) rank = n_lat;
    return (double)latencies[rank - 1] / 1e6;
}

int main(int argc, char **argv) {
    if (argc != 8) {
        fprintf(stderr, "usage: %s HOST PORT PATH BODY TOKENS_FILE CONCURRENCY SECONDS\n", argv[0]);
        return 2;
    }
    host = argv[1];
    port = atoi(argv[2]);
    path = argv[3];
    body = argv[4];
    int concurrency = atoi(argv[6]);
    double seconds = atof(argv[7]);
    if (port <= 0 || concurrency <= 0 || seconds <= 0) {
        fprintf(stderr, "loadgen: PORT, CONCURRENCY and SECONDS must be positive\n");
        return 2;
    }
    server_addr.sin_family = AF_INET;
    server_addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &server_addr.sin_addr) != 1) {
        fprintf(stderr, "loadgen: HOST must be an IPv4 address: %s\n", host);
        return 2;
    }
    char **tokens = read_tokens(argv[5], concurrency);

    /* Keys unique across runs: a random run id, then the connection and its request number. */
    unsigned char rnd[8];
    int rfd = open("/dev/urandom", O_RDONLY);
    if (rfd < 0 || read(rfd, rnd, sizeof rnd) != (ssize_t)sizeof rnd) die("/dev/urandom");
    close(rfd);
    for (int i = 0; i < 8; i++) sprintf(run_id + 2 * i, "%02x", rnd[i]);

    int epfd = epoll_create1(0);
    if (epfd < 0) die("epoll_create1");
    conn_t *conns = calloc((size_t)concurrency, sizeof *conns);
    for (int i = 0; i < concurrency; i++) {
        conns[i].index = i;
        conns[i].token = tokens[i];
        conns[i].cap = 65536;
        conns[i].buf = malloc(conns[i].cap);
        connect_conn(&conns[i], epfd);
    }

    uint64_t start = now_ns();
    uint64_t deadline = start + (uint64_t)(seconds * 1e9);
    uint64_t drain_until = deadline + (uint64_t)(DRAIN_S * 1e9);
    uint64_t last_answer = start;
    for (int i = 0; i < concurrency; i++)
        if (send_request(&conns[i]) < 0) die("write");
    int in_flight = concurrency;
    struct epoll_event events[256];
    while (in_flight > 0) {
        uint64_t t = now_ns();
        if (t >= drain_until) break;
        int n = epoll_wait(epfd, events, 256, 100);
        if (n < 0 && errno != EINTR) die("epoll_wait");
        for (int e = 0; e < n; e++) {
            conn_t *c = events[e].data.ptr;
            int eof = read_available(c);
            int status = 0, keep = 0;
            size_t body_at = 0;
            long total = complete_response(c, &status, &keep, &body_at);
            if (total < 0) {
                fprintf(stderr, "loadgen: cannot parse an answer: %.200s\n", c->buf);
                return 1;
            }
            if (total == 0 && !eof) continue;
            if (total > 0) {
                on_response(c, status, body_at, (size_t)total);
                last_answer = now_ns();
            } else {
                disconnects++; /* closed before answering: the request in flight is lost */
            }
            in_flight--;
            c->len = 0; /* one request in flight, so nothing follows its answer */
            if (eof || !keep) reconnect(c, epfd);
            if (now_ns() < deadline) {
                if (send_request(c) < 0) die("write");
                in_flight++;
            }
        }
    }
    unanswered = (unsigned long)in_flight;

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    double wall_s = (double)(last_answer - start) / 1e9;
    qsort(latencies, n_lat, sizeof *latencies, cmp_u64);
    double sum = 0;
    for (size_t i = 0; i < n_lat; i++) sum += (double)latencies[i];

    printf("{\"concurrency\": %d, \"rounds\": %lu, \"requests\": %zu, \"seconds\": %.3f, "
           "\"rounds_per_s\": %.1f, \"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, "
           "\"max_ms\": %.3f, \"mean_ms\": %.3f, \"incomplete\": %lu, \"disconnects\": %lu, "
           "\"unanswered\": %lu, \"client_cpu_s\": %.3f, \"status_counts\": {",
           concurrency, rounds, n_lat, wall_s, wall_s > 0 ? (double)rounds / wall_s : 0.0,
           percentile_ms(0.50), percentile_ms(0.90), percentile_ms(0.99),
           n_lat ? (double)latencies[n_lat - 1] / 1e6 : 0.0,
           n_lat ? sum / (double)n_lat / 1e6 : 0.0, incomplete, disconnects, unanswered, cpu_s);
    const char *sep = "";
    for (int s = 0; s < MAX_STATUS; s++)
        if (status_counts[s]) {
            printf("%s\"%d\": %lu", sep, s, status_counts[s]);
            sep = ", ";
        }
    printf("}}\n");
    return 0;
}
