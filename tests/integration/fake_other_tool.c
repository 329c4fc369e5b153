/* Another injection tool: CUDA_INJECTION64_PATH may name one that is not
 * cuptitrace (public_header_c --other). */
__attribute__((visibility("default"))) int InitializeInjection(void) { return 1; }
