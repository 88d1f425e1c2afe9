/* The floor under the driver's send: the CPU a plain writer spends sending TOTAL bytes over
 * 127.0.0.1 in CHUNK-byte write()s to a child process that reads and discards them (no HTTP,
 * no reading of a file). Prints the writer's own user and sys CPU.
 *
 *   gcc -O2 -o /tmp/loopback_send bench/loopback_send.c && /tmp/loopback_send 1045633997 1048576
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static double secs(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s TOTAL_BYTES CHUNK_BYTES\n", argv[0]);
    return 2;
  }
  size_t total = strtoull(argv[1], 0, 10), chunk = strtoull(argv[2], 0, 10);
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (bind(ls, (void *)&a, sizeof a) || getsockname(ls, (void *)&a, &al) || listen(ls, 1)) {
    perror("listen");
    return 1;
  }
  if (fork() == 0) {
    int c = accept(ls, 0, 0);
    char *b = malloc(1 << 20);
    while (read(c, b, 1 << 20) > 0) {
    }
    _exit(0);
  }
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(s, (void *)&a, sizeof a)) {
    perror("connect");
    return 1;
  }
  char *buf = malloc(chunk);
  memset(buf, 'x', chunk);
  struct rusage u0, u1;
  getrusage(RUSAGE_SELF, &u0);
  for (size_t sent = 0; sent < total;) {
    ssize_t w = write(s, buf, chunk < total - sent ? chunk : total - sent);
    if (w <= 0) {
      perror("write");
      return 1;
    }
    sent += w;
  }
  getrusage(RUSAGE_SELF, &u1);
  close(s);
  wait(0);
  printf("writer: user %.3f s + sys %.3f s for %zu bytes in %zu-byte writes\n",
         secs(u1.ru_utime) - secs(u0.ru_utime), secs(u1.ru_stime) - secs(u0.ru_stime), total,
         chunk);
  return 0;
}
