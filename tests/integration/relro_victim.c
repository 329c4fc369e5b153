/* A library whose table entry for _exit lies in RELRO (linked with -z now).
 * endings_probe makes its last RELRO page writable, as the loader leaves a
 * partial one that .data shares: the tracer's redirect must leave it so. */
#include <unistd.h>

int relro_victim_counter = 1;

int relro_victim_bump(void) { return ++relro_victim_counter; }

/* Read through the table entry: the tracer's _exit once redirected. */
void* relro_victim_exit(void) { return (void*)&_exit; }
