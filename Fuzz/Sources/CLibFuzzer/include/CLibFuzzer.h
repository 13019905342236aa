#ifndef MOLT_CLIBFUZZER_H
#define MOLT_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's input callback: returns 0 (anything else is reserved by libFuzzer).
typedef int (*molt_fuzz_callback)(const uint8_t *data, size_t size);

/// Runs libFuzzer's driver (flags, corpus folders, the fuzzing loop) on `callback`, with the process's
/// arguments. SwiftPM gives each executable target a `main` of its own (`<module>_main`), so libFuzzer's `main`
/// is never linked: each target's entry point calls this instead.
int molt_fuzz_run(int argc, char **argv, molt_fuzz_callback callback);

#endif
