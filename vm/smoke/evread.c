/* evread: a minimal evdev reader for the VM smoke test (C, because Python is 20-40x slower
 * under software emulation).
 *
 *   evread NODE READY_FILE RELEASES IDLE_SECONDS
 *
 * Opens NODE, switches its timestamps to CLOCK_MONOTONIC, prints the device name, then
 * creates READY_FILE: events written to the node before that moment are never seen by this
 * reader, so the player must wait for the file. Prints every event as
 * "E: SEC.USEC TYPE CODE VALUE" (hex type/code, like evemu), stops after RELEASES
 * BTN_TOUCH-0 events, and prints the latency from each event's kernel timestamp to its
 * receipt here (same clock). Exit 0 when all releases arrived, 2 when the node stayed idle
 * for IDLE_SECONDS first (events lost), 1 on errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int compare_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: evread NODE READY_FILE RELEASES IDLE_SECONDS\n");
        return 1;
    }
    const char *node = argv[1], *ready = argv[2];
    long wanted = atol(argv[3]);
    int idle_ms = atoi(argv[4]) * 1000;

    setvbuf(stdout, NULL, _IOLBF, 0); /* a killed reader must not lose printed events */
    int fd = open(node, O_RDONLY);
    if (fd < 0) { fprintf(stderr, "evread: open %s: %s\n", node, strerror(errno)); return 1; }
    int clock = CLOCK_MONOTONIC;
    if (ioctl(fd, EVIOCSCLOCKID, &clock) < 0) { perror("evread: EVIOCSCLOCKID"); return 1; }
    char name[256] = "";
    ioctl(fd, EVIOCGNAME(sizeof name), name);
    printf("N: %s\n", name);
    fflush(stdout);
    int rf = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (rf < 0) { fprintf(stderr, "evread: create %s: %s\n", ready, strerror(errno)); return 1; }
    close(rf);

    size_t capacity = 4096, count = 0;
    long *latency_us = malloc(capacity * sizeof *latency_us);
    long releases = 0;
    int status = 0;
    while (releases < wanted) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, idle_ms);
        if (r == 0) { status = 2; break; }
        if (r < 0) { if (errno == EINTR) continue; perror("evread: poll"); return 1; }
        struct input_event ev[64];
        ssize_t n = read(fd, ev, sizeof ev);
        if (n < 0) { if (errno == EINTR || errno == EAGAIN) continue; perror("evread: read"); return 1; }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long now_us = now.tv_sec * 1000000L + now.tv_nsec / 1000;
        for (size_t i = 0; i < (size_t)n / sizeof ev[0]; i++) {
            printf("E: %ld.%06ld %04x %04x %d\n", (long)ev[i].input_event_sec,
                   (long)ev[i].input_event_usec, ev[i].type, ev[i].code, ev[i].value);
            if (count == capacity) latency_us = realloc(latency_us, (capacity *= 2) * sizeof *latency_us);
            latency_us[count++] = now_us - (ev[i].input_event_sec * 1000000L + ev[i].input_event_usec);
            if (ev[i].type == EV_KEY && ev[i].code == BTN_TOUCH && ev[i].value == 0) releases++;
        }
    }
    if (count > 0) {
        qsort(latency_us, count, sizeof *latency_us, compare_long);
        printf("L: events %zu p50 %ldus p99 %ldus max %ldus\n", count, latency_us[count / 2],
               latency_us[count * 99 / 100], latency_us[count - 1]);
    }
    printf("R: releases %ld of %ld%s\n", releases, wanted, status == 2 ? " (idle timeout)" : "");
    return status;
}
