/* The floor under the driver's file reading: the CPU a plain reader spends going through a
 * file as the driver does (mapped, pages brought in 8 MiB ahead with MADV_POPULATE_READ and
 * dropped 4 MiB behind with MADV_DONTNEED, every line found with memchr), with nothing else:
 * no check, no copy, no sending. Prints its user and sys CPU. Pages fault in as read
 * (fault-around); MODE=populate brings them in 8 MiB ahead with MADV_POPULATE_READ instead;
 * MODE=whole keeps every page (the whole file resident; its unmapping at exit is not counted);
 * SEQ=1 adds MADV_SEQUENTIAL.
 *
 *   gcc -O2 -o /tmp/mapped_read bench/mapped_read.c && /tmp/mapped_read FILE
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#define STEP (4ul << 20)

static double secs(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  int fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st)) {
    perror(argv[1]);
    return 1;
  }
  size_t len = st.st_size, at = 0, released = 0, populated = 0, lines = 0;
  char *base = mmap(0, len, PROT_READ, MAP_PRIVATE, fd, 0);
  if (base == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  const char *mode = getenv("MODE") ? getenv("MODE") : "";
  int populate = !strcmp(mode, "populate"), drop = strcmp(mode, "whole");
  if (getenv("SEQ")) madvise(base, len, MADV_SEQUENTIAL);
  while (at < len) {
    size_t here = at & ~4095ul, end = here + STEP < len ? here + STEP : len;
    if (drop && here > released) madvise(base + released, here - released, MADV_DONTNEED), released = here;
    size_t to = here + 2 * STEP < len ? here + 2 * STEP : len;
    if (populate && to > populated) madvise(base + populated, to - populated, MADV_POPULATE_READ), populated = to;
    while (at < end) {
      char *nl = memchr(base + at, '\n', len - at);
      at = nl ? (size_t)(nl - base) + 1 : len;
      lines++;
    }
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("reader: user %.3f s + sys %.3f s for %zu bytes, %zu lines\n", secs(ru.ru_utime),
         secs(ru.ru_stime), len, lines);
  return 0;
}
