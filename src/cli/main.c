/* main.c: the starmet command: dispatch to `compute`, `synth` and `maf`.
 * The only place that exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "sm_compute.h"
#include "sm_maf.h"
#include "sm_mpi.h"

static char *join_args(int argc, char **argv)
{
  size_t len = 1;
  for (int k = 0; k < argc; k++)
    len += strlen(argv[k]) + 1;
  char *s = malloc(len);
  if (!s)
    return NULL;
  s[0] = 0;
  for (int k = 0; k < argc; k++) {
    strcat(s, argv[k]);
    if (k + 1 < argc)
      strcat(s, " ");
  }
  return s;
}

int main(int argc, char **argv)
{
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
      !strcmp(argv[1], "help")) {
    sm_options_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("starmet %s\n", PACKAGE_VERSION);
    unsigned where = 0; /* worker types the compute codelets can use */
    for (int k = 0; k < SM_TK_COUNT; k++)
      where |= sm_codelets_where((sm_task_kind_t)k);
    printf("codelets: cpu%s%s\n", where & STARPU_CUDA ? " cuda" : "",
           where & STARPU_OPENCL ? " opencl" : "");
    return 0;
  }
  sm_options_t o;
  int r;
  if (!strcmp(argv[1], "compute")) {
    r = sm_options_parse_compute(argc - 1, argv + 1, &o);
    if (r == 1)
      return 0;
    if (r != SM_OK)
      return 2;
    char *cmd = join_args(argc, argv);
    sm_mpi_init(&argc, &argv);
    r = sm_compute_main(&o, cmd ? cmd : "starmet compute");
    sm_mpi_finalize();
    free(cmd);
    return r == SM_OK ? 0 : 1;
  }
  if (!strcmp(argv[1], "synth")) {
    r = sm_options_parse_synth(argc - 1, argv + 1, &o);
    if (r == 1)
      return 0;
    if (r != SM_OK)
      return 2;
    return sm_synth_main(&o) == SM_OK ? 0 : 1;
  }
  if (!strcmp(argv[1], "maf")) {
    sm_maf_options_t mo;
    r = sm_maf_options_parse(argc - 1, argv + 1, &mo);
    if (r == 1)
      return 0;
    if (r != SM_OK)
      return 2;
    char *cmd = join_args(argc, argv);
    sm_mpi_init(&argc, &argv);
    r = sm_maf_main(&mo, cmd ? cmd : "starmet maf");
    sm_mpi_finalize();
    free(cmd);
    return r == SM_OK ? 0 : 1;
  }
  fprintf(stderr, "starmet: error: unknown command '%s' (use compute, synth or maf; "
                  "see starmet --help)\n", argv[1]);
  return 2;
}
