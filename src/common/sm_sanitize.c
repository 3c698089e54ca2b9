/* sm_sanitize.c: linked into starmet only when it is built with the
 * sanitizers (--enable-sanitizers, scripts/check --sanitize).
 *
 * Open MPI, PMIx and PoCL unload their plugins with dlclose() at shutdown,
 * before LeakSanitizer looks at the heap; an allocation a plugin kept is
 * then reported with stack frames that name no module, which no
 * suppression can match. This dlclose() keeps every module mapped until
 * the process exits, so tests/lsan.supp can name the library that owns a
 * leak and every other leak (starmet's own, in codelets too) is reported. */
#include <stddef.h>

int dlclose(void *handle);

int dlclose(void *handle)
{
  (void)handle;
  return 0;
}
