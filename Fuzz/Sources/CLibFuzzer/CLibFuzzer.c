#include "CLibFuzzer.h"

// libclang_rt.fuzzer (linked by -sanitize=fuzzer) defines it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int molt_fuzz_run(int argc, char **argv, molt_fuzz_callback callback) {
    return LLVMFuzzerRunDriver(&argc, &argv, callback);
}
