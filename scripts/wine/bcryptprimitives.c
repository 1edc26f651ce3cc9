/* Wine 8 has no bcryptprimitives.dll, whose ProcessPrng Rust's standard library imports on
 * Windows. This stand-in, for running the tests under wine only (never shipped), fills the
 * buffer from RtlGenRandom (advapi32's SystemFunction036), which wine has. */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE p, SIZE_T n)
{
    while (n) {
        ULONG k = n > 0x10000000 ? 0x10000000 : (ULONG)n;
        if (!RtlGenRandom(p, k))
            return FALSE;
        p += k;
        n -= k;
    }
    return TRUE;
}
