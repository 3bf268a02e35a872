/*
 * pingpong: MPI round trip against a raw TCP round trip between the same two
 * processes, so the MPI stack's overhead on the virtual cluster (or a real
 * one) can be read as one ratio.
 *
 *   mpirun -np 2 ./pingpong [-i ITERS] [-b BATCHES] [-w WARMUP] [-s BYTES]
 *                           [-p] [-B]
 *
 * Ranks 0 and 1 take part; any further ranks only wait. Prints one line on
 * rank 0:
 *
 *   mpi_rtt_us=... tcp_rtt_us=... ratio=...
 *
 * -p  the TCP side polls (non-blocking reads in a loop) instead of sleeping in
 *     read(); MPI's TCP transports poll too, so this isolates the MPI stack's
 *     cost from the cost of waking a sleeping process (large on some VMs).
 *     Appends " tcp=poll" to the line.
 * -B  also times MPI_Barrier over all ranks (the idle ranks too, which is
 *     what shows whether waiting ranks starve busy ones of their cores).
 *     Appends " barrier_us=..." (median of batches, per barrier).
 *
 * Both numbers are full round trips (half of mpi_rtt_us is the usual
 * "latency" of OSU-style benchmarks); each is the median over BATCHES batches
 * of ITERS round trips, so one scheduler hiccup cannot move the result.
 * ratio = mpi_rtt_us / tcp_rtt_us.
 *
 * Build: mpicc -O2 -o pingpong pingpong.c
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_BYTES 65536

static int rank;

static void die(const char *what) {
  fprintf(stderr, "pingpong rank %d: %s: %s\n", rank, what, strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void write_all(int fd, const char *buf, size_t n) {
  while (n > 0) {
    ssize_t k = write(fd, buf, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      die("write");
    }
    buf += k;
    n -= (size_t)k;
  }
}

static int tcp_poll;

static void read_all(int fd, char *buf, size_t n) {
  while (n > 0) {
    ssize_t k = tcp_poll ? recv(fd, buf, n, MSG_DONTWAIT) : read(fd, buf, n);
    if (k < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      die("read");
    }
    if (k == 0) {
      errno = ECONNRESET;
      die("read (peer closed)");
    }
    buf += k;
    n -= (size_t)k;
  }
}

/* Rank 0 must listen on the address the peer will reach it by; that is the
 * address its own hostname resolves to (on the virtual cluster, the node's
 * bridge address), falling back to any address when the name is unknown. */
static struct in_addr own_address(void) {
  char host[256];
  struct addrinfo hints, *res = NULL;
  struct in_addr a;

  a.s_addr = htonl(INADDR_LOOPBACK);
  if (gethostname(host, sizeof host) != 0) return a;
  host[sizeof host - 1] = '\0';
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host, NULL, &hints, &res) == 0 && res) {
    a = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
    freeaddrinfo(res);
  }
  return a;
}

static void set_nodelay(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
    die("setsockopt TCP_NODELAY");
}

/* Connected socket between ranks 0 and 1; the listening address travels over
 * MPI so the TCP path is exactly the one MPI's own TCP transport would use. */
static int tcp_pair(void) {
  struct sockaddr_in sa;
  socklen_t len = sizeof sa;
  int fd;

  if (rank == 0) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (lfd < 0) die("socket");
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr = own_address();
    sa.sin_port = 0;
    if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0) die("bind");
    if (listen(lfd, 1) != 0) die("listen");
    if (getsockname(lfd, (struct sockaddr *)&sa, &len) != 0) die("getsockname");
    MPI_Send(&sa, (int)sizeof sa, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    fd = accept(lfd, NULL, NULL);
    if (fd < 0) die("accept");
    close(lfd);
  } else {
    MPI_Recv(&sa, (int)sizeof sa, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) die("connect");
  }
  set_nodelay(fd);
  return fd;
}

static double mpi_batch(char *buf, int bytes, int iters) {
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) / iters;
}

static double tcp_batch(int fd, char *buf, int bytes, int iters) {
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    if (rank == 0) {
      write_all(fd, buf, (size_t)bytes);
      read_all(fd, buf, (size_t)bytes);
    } else {
      read_all(fd, buf, (size_t)bytes);
      write_all(fd, buf, (size_t)bytes);
    }
  }
  return (MPI_Wtime() - t0) / iters;
}

static int arg_int(int argc, char **argv, int *i, int lo, int hi) {
  if (*i + 1 >= argc) {
    if (rank == 0) fprintf(stderr, "pingpong: %s needs a value\n", argv[*i]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long v = strtol(argv[++*i], NULL, 10);
  if (v < lo || v > hi) {
    if (rank == 0) fprintf(stderr, "pingpong: %s must be in %d..%d\n", argv[*i - 1], lo, hi);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return (int)v;
}

int main(int argc, char **argv) {
  int size, iters = 1000, batches = 15, warmup = 500, bytes = 8, barrier = 0;
  double barrier_us = 0;
  static char buf[MAX_BYTES];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-i"))
      iters = arg_int(argc, argv, &i, 1, 100000000);
    else if (!strcmp(argv[i], "-b"))
      batches = arg_int(argc, argv, &i, 1, 10000);
    else if (!strcmp(argv[i], "-w"))
      warmup = arg_int(argc, argv, &i, 0, 100000000);
    else if (!strcmp(argv[i], "-s"))
      bytes = arg_int(argc, argv, &i, 1, MAX_BYTES);
    else if (!strcmp(argv[i], "-p"))
      tcp_poll = 1;
    else if (!strcmp(argv[i], "-B"))
      barrier = 1;
    else {
      if (rank == 0)
        fprintf(stderr,
                "usage: pingpong [-i ITERS] [-b BATCHES] "
                "[-w WARMUP] [-s BYTES] [-p] [-B]\n");
      MPI_Finalize();
      return 1;
    }
  }
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "pingpong: needs at least 2 ranks\n");
    MPI_Finalize();
    return 1;
  }

  double mpi_us = 0, tcp_us = 0;
  if (rank < 2) {
    double *mpi_t = malloc(sizeof(double) * (size_t)batches);
    double *tcp_t = malloc(sizeof(double) * (size_t)batches);
    MPI_Comm pair;
    int fd;

    if (!mpi_t || !tcp_t) die("malloc");
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &pair);
    memset(buf, 'x', sizeof buf);
    fd = tcp_pair();

    if (warmup > 0) {
      mpi_batch(buf, bytes, warmup);
      tcp_batch(fd, buf, bytes, warmup);
    }
    /* Interleave the two so a slow phase of the machine hits both. */
    for (int b = 0; b < batches; b++) {
      MPI_Barrier(pair);
      mpi_t[b] = mpi_batch(buf, bytes, iters);
      MPI_Barrier(pair);
      tcp_t[b] = tcp_batch(fd, buf, bytes, iters);
    }
    close(fd);
    MPI_Comm_free(&pair);

    mpi_us = median(mpi_t, batches) * 1e6;
    tcp_us = median(tcp_t, batches) * 1e6;
    free(mpi_t);
    free(tcp_t);
  } else {
    MPI_Comm idle;
    MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, rank, &idle);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  if (barrier) {
    int biters = iters < 100 ? iters : iters / 10;
    double *bar_t = malloc(sizeof(double) * (size_t)batches);
    if (!bar_t) die("malloc");
    for (int i = 0; i < warmup / 10; i++) MPI_Barrier(MPI_COMM_WORLD);
    for (int b = 0; b < batches; b++) {
      double t0;
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      for (int i = 0; i < biters; i++) MPI_Barrier(MPI_COMM_WORLD);
      bar_t[b] = (MPI_Wtime() - t0) / biters;
    }
    /* Rank 0's view; every rank leaves each barrier within one message
     * time of the others, so this is the job's barrier time. */
    barrier_us = median(bar_t, batches) * 1e6;
    free(bar_t);
  }

  if (rank == 0) {
    printf("mpi_rtt_us=%.2f tcp_rtt_us=%.2f ratio=%.3f", mpi_us, tcp_us,
           tcp_us > 0 ? mpi_us / tcp_us : 0.0);
    if (tcp_poll) printf(" tcp=poll");
    if (barrier) printf(" barrier_us=%.2f", barrier_us);
    printf("\n");
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
